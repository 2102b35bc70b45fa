/*
Copyright 2026 The Caldera Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package jobflow

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"k8s.io/apimachinery/pkg/runtime"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
)

const (
	// MaxWhenLength is the longest when expression, in characters (the field's MaxLength).
	MaxWhenLength = 4096
	// WhenCostLimit is the run-time cost limit of one evaluation, as for lifecycle policies.
	WhenCostLimit uint64 = 100_000
	// WhenMaxEstimatedCost is the limit on the compile-time worst-case cost estimate.
	WhenMaxEstimatedCost uint64 = 100_000
	// whenCacheSize is how many compiled expressions an engine keeps.
	whenCacheSize = 256
	// maxSizeEstimate is the size the cost estimator assumes for a list, map or string of a
	// job whose size is not known at compile time.
	maxSizeEstimate = 256
)

// WhenEngine compiles and evaluates dependsOn.when expressions. The variable jobs is a map from
// flow name to that flow's Job as stored (metadata, spec, status). Each expression is compiled
// once (the engine keeps the compiled programs by text) and its cost is bounded at compile time
// and at run time. It is safe for concurrent use.
type WhenEngine struct {
	env   *cel.Env
	mu    sync.Mutex
	cache map[string]compiledWhen
}

type compiledWhen struct {
	prg cel.Program
	err error
}

// NewWhenEngine returns a WhenEngine.
func NewWhenEngine() (*WhenEngine, error) {
	env, err := cel.NewEnv(
		cel.Variable("jobs", cel.MapType(cel.StringType, cel.DynType)),
		cel.OptionalTypes(),
		cel.CrossTypeNumericComparisons(true),
		cel.ParserExpressionSizeLimit(MaxWhenLength),
		cel.ASTValidators(cel.ValidateComprehensionNestingLimit(2)),
	)
	if err != nil {
		return nil, fmt.Errorf("building the CEL environment of JobFlow when conditions: %w", err)
	}
	return &WhenEngine{env: env, cache: map[string]compiledWhen{}}, nil
}

// Compile checks expr: it must parse, type-check to bool and stay under the estimated cost.
func (e *WhenEngine) Compile(expr string) (cel.Program, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if c, ok := e.cache[expr]; ok {
		return c.prg, c.err
	}
	prg, err := e.compile(expr)
	if len(e.cache) >= whenCacheSize {
		clear(e.cache)
	}
	e.cache[expr] = compiledWhen{prg: prg, err: err}
	return prg, err
}

func (e *WhenEngine) compile(expr string) (cel.Program, error) {
	if n := utf8.RuneCountInString(expr); n > MaxWhenLength {
		return nil, fmt.Errorf("the expression is %d characters long; the limit is %d", n, MaxWhenLength)
	}
	if strings.TrimSpace(expr) == "" {
		return nil, errors.New("the expression is empty: write a condition such as jobs.train.status.succeeded >= 2, or remove when")
	}
	ast, iss := e.env.Compile(expr)
	if iss.Err() != nil {
		return nil, fmt.Errorf("does not compile: %w", iss.Err())
	}
	if !ast.OutputType().IsExactType(cel.BoolType) && !ast.OutputType().IsExactType(cel.DynType) {
		return nil, fmt.Errorf("must return bool, returns %s", ast.OutputType())
	}
	est, err := e.env.EstimateCost(ast, sizeEstimator{})
	if err != nil {
		return nil, fmt.Errorf("estimating its cost: %w", err)
	}
	if est.Max > WhenMaxEstimatedCost {
		return nil, fmt.Errorf("its estimated cost %d exceeds the limit %d: simplify it (fewer comprehensions over lists)", est.Max, WhenMaxEstimatedCost)
	}
	prg, err := e.env.Program(ast, cel.CostLimit(WhenCostLimit), cel.InterruptCheckFrequency(100))
	if err != nil {
		return nil, fmt.Errorf("does not compile: %w", err)
	}
	return prg, nil
}

// Evaluate returns the value of expr over jobs (keyed by flow name). A flow whose job does not
// exist is absent from the map: jobs.x fails, has(jobs.x) is false.
func (e *WhenEngine) Evaluate(ctx context.Context, expr string, jobs map[string]*batchv1alpha1.Job) (bool, error) {
	prg, err := e.Compile(expr)
	if err != nil {
		return false, err
	}
	vars := make(map[string]any, len(jobs))
	for name, job := range jobs {
		obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(job)
		if err != nil {
			return false, err
		}
		vars[name] = obj
	}
	out, _, err := prg.ContextEval(ctx, map[string]any{"jobs": vars})
	if err != nil {
		return false, fmt.Errorf("evaluation failed: %w", err)
	}
	b, ok := out.Value().(bool)
	if !ok {
		return false, fmt.Errorf("must return bool, returned %v", out.Value())
	}
	return b, nil
}

// Func returns the WhenFunc Decide calls, evaluating under ctx.
func (e *WhenEngine) Func(ctx context.Context) WhenFunc {
	return func(expr string, jobs map[string]*batchv1alpha1.Job) (bool, error) {
		return e.Evaluate(ctx, expr, jobs)
	}
}

// sizeEstimator bounds the size of lists, maps and strings of a job, which are unknown at
// compile time, so that the estimate of an expression with a comprehension is finite.
type sizeEstimator struct{}

func (sizeEstimator) EstimateSize(checker.AstNode) *checker.SizeEstimate {
	return &checker.SizeEstimate{Min: 0, Max: maxSizeEstimate}
}

func (sizeEstimator) EstimateCallCost(string, string, *checker.AstNode, []checker.AstNode) *checker.CallEstimate {
	return nil
}
