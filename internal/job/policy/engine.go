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

package policy

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/types"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
)

const (
	// MaxExpressionLength is the longest expression accepted, in characters; it is the
	// MaxLength of LifecyclePolicy.when.
	MaxExpressionLength = 4096
	// DefaultCostLimit is the default run-time cost limit of one evaluation, a tenth of the limit
	// Kubernetes sets per CEL validation rule call: a policy runs on every event of its job.
	DefaultCostLimit uint64 = 100_000
	// DefaultMaxEstimatedCost is the default limit on the compile-time worst-case cost estimate.
	DefaultMaxEstimatedCost uint64 = 100_000
	// DefaultCacheSize is the default number of compiled expressions (and of decoded
	// annotations) an Engine keeps.
	DefaultCacheSize = 1024
	// interruptCheckFrequency is how many comprehension iterations run between two checks of
	// the evaluation context.
	interruptCheckFrequency = 100
	// maxComprehensionNesting bounds how deeply macros such as all and exists may nest.
	maxComprehensionNesting = 4
)

// Option configures an Engine.
type Option func(*options)

type options struct {
	costLimit        uint64
	maxEstimatedCost uint64
	cacheSize        int
}

// WithCostLimit sets the run-time cost limit of one evaluation: an expression that could cost
// more on the input it is given is not run, and fails with an EvalError wrapping
// ErrCostLimitExceeded. 0 keeps the default.
func WithCostLimit(limit uint64) Option {
	return func(o *options) {
		if limit > 0 {
			o.costLimit = limit
		}
	}
}

// WithMaxEstimatedCost sets the limit on the compile-time worst-case cost estimate: an
// expression estimated above it is rejected with a CompileError of reason ReasonCost. 0 keeps
// the default.
func WithMaxEstimatedCost(limit uint64) Option {
	return func(o *options) {
		if limit > 0 {
			o.maxEstimatedCost = limit
		}
	}
}

// WithCacheSize sets how many compiled expressions, and how many decoded policy annotations,
// the engine keeps; the least recently used are dropped first. 0 or less disables the caches.
func WithCacheSize(n int) Option {
	return func(o *options) {
		o.cacheSize = n
	}
}

// Engine compiles and evaluates policy expressions. It keeps each compiled expression (and each
// compile error) in a bounded cache keyed by the expression's text, so that an expression is
// compiled once however many jobs and events use it. An Engine is safe for concurrent use;
// one per process is enough.
type Engine struct {
	env              *cel.Env
	costLimit        uint64
	maxEstimatedCost uint64
	exprs            *lru[compiled]
	annotations      *lru[decodedAnnotation]
}

type compiled struct {
	expr *Expression
	err  error
}

// NewEngine returns an Engine with the variables job, tasks, task, pod, event and elapsed.
func NewEngine(opts ...Option) (*Engine, error) {
	o := options{costLimit: DefaultCostLimit, maxEstimatedCost: DefaultMaxEstimatedCost, cacheSize: DefaultCacheSize}
	for _, opt := range opts {
		opt(&o)
	}
	envOpts := []cel.EnvOption{
		cel.OptionalTypes(),
		cel.CrossTypeNumericComparisons(true),
		cel.DefaultUTCTimeZone(true),
		cel.EagerlyValidateDeclarations(true),
		cel.ParserExpressionSizeLimit(MaxExpressionLength),
		cel.ASTValidators(
			cel.ValidateDurationLiterals(),
			cel.ValidateTimestampLiterals(),
			cel.ValidateRegexLiterals(),
			cel.ValidateComprehensionNestingLimit(maxComprehensionNesting),
		),
	}
	env, err := cel.NewEnv(append(envOpts, envOptions()...)...)
	if err != nil {
		return nil, fmt.Errorf("building the CEL environment of lifecycle policies: %w", err)
	}
	return &Engine{
		env:              env,
		costLimit:        o.costLimit,
		maxEstimatedCost: o.maxEstimatedCost,
		exprs:            newLRU[compiled](o.cacheSize),
		annotations:      newLRU[decodedAnnotation](o.cacheSize),
	}, nil
}

// CostLimit returns the run-time cost limit of one evaluation.
func (e *Engine) CostLimit() uint64 {
	return e.costLimit
}

// MaxEstimatedCost returns the limit on the compile-time cost estimate.
func (e *Engine) MaxEstimatedCost() uint64 {
	return e.maxEstimatedCost
}

// Compile returns the compiled form of expr, from the cache when it was compiled before. The
// error, when there is one, is a *CompileError.
func (e *Engine) Compile(expr string) (*Expression, error) {
	c := e.exprs.get(expr, func() compiled {
		x, err := e.compile(expr)
		return compiled{expr: x, err: err}
	})
	return c.expr, c.err
}

// EvaluateBool compiles expr (or takes it from the cache) and evaluates it against in.
func (e *Engine) EvaluateBool(ctx context.Context, expr string, in *Input) (bool, error) {
	x, err := e.Compile(expr)
	if err != nil {
		return false, err
	}
	return x.EvaluateBool(ctx, in)
}

// Condition returns the function the lifecycle state machine calls for a policy: it reports
// whether the policy's when holds for in (true when the policy has no when). Its error is a
// *CompileError or an *EvalError.
func (e *Engine) Condition(ctx context.Context, in *Input) func(batchv1alpha1.LifecyclePolicy) (bool, error) {
	return func(p batchv1alpha1.LifecyclePolicy) (bool, error) {
		if p.When == "" {
			return true, nil
		}
		return e.EvaluateBool(ctx, p.When, in)
	}
}

func (e *Engine) compile(expr string) (*Expression, error) {
	fail := func(reason CompileErrorReason, issues ...Issue) (*Expression, error) {
		return nil, &CompileError{Expression: expr, Reason: reason, Issues: issues}
	}
	if n := utf8.RuneCountInString(expr); n > MaxExpressionLength {
		return fail(ReasonTooLong, Issue{Message: fmt.Sprintf(
			"the expression is %d characters long; the limit is %d: shorten it or split it over several policies", n, MaxExpressionLength)})
	}
	if strings.TrimSpace(expr) == "" {
		return fail(ReasonSyntax, Issue{Message: "the expression is empty: write a condition such as pod.exitCode == 137, or remove when"})
	}
	parsed, iss := e.env.Parse(expr)
	if iss.Err() != nil {
		return fail(ReasonSyntax, issuesFrom(iss.Errors())...)
	}
	if issues := unsupported(parsed.NativeRep()); len(issues) > 0 {
		return fail(ReasonUnsupported, issues...)
	}
	checked, iss := e.env.Check(parsed)
	if iss.Err() != nil {
		reason := ReasonType
		for _, ce := range iss.Errors() {
			if ce.Message == nestingLimitMessage {
				reason = ReasonCost
			}
		}
		return fail(reason, issuesFrom(iss.Errors())...)
	}
	if out := checked.OutputType(); !out.IsExactType(types.BoolType) {
		return fail(ReasonResultType, Issue{Message: fmt.Sprintf(
			"the expression returns %s, but a policy condition must return bool: compare the value, for example pod.exitCode == 137",
			typeName(out))})
	}
	est, err := e.env.EstimateCost(checked, estimator{})
	if err != nil {
		return fail(ReasonCost, Issue{Message: fmt.Sprintf("the cost of the expression cannot be estimated: %v", err)})
	}
	if est.Max > e.maxEstimatedCost {
		return fail(ReasonCost, Issue{Message: fmt.Sprintf(
			"the estimated worst-case cost of the expression is %d, above the limit of %d: iterate over fewer or smaller lists and maps (each nested all, exists, map or filter multiplies the cost) or use fewer string functions on long strings",
			est.Max, e.maxEstimatedCost)})
	}
	prg, err := e.env.Program(checked,
		cel.InterruptCheckFrequency(interruptCheckFrequency),
		cel.EvalOptions(cel.OptOptimize),
	)
	if err != nil {
		return fail(ReasonType, Issue{Message: err.Error()})
	}
	return &Expression{
		text:      expr,
		env:       e.env,
		checked:   checked,
		program:   prg,
		minCost:   est.Min,
		maxCost:   est.Max,
		costLimit: e.costLimit,
		taskRefs:  taskReferences(checked.NativeRep()),
		vars:      referencedVars(checked.NativeRep()),
	}, nil
}

// referencedVars returns the variables an expression reads.
func referencedVars(a *ast.AST) varBit {
	var vars varBit
	for _, r := range a.ReferenceMap() {
		vars |= varBits[r.Name]
	}
	return vars
}

func typeName(t *types.Type) string {
	if t.Kind() == types.DynKind {
		return "a value of a type known only at run time (dyn)"
	}
	return t.String()
}

// unsupported reports the parts of a parsed expression that policies do not allow: creating
// the policy objects (job, task, pod, ...).
func unsupported(a *ast.AST) []Issue {
	var issues []Issue
	for _, n := range ast.MatchDescendants(ast.NavigateAST(a), ast.KindMatcher(ast.StructKind)) {
		name := strings.TrimPrefix(n.AsStruct().TypeName(), ".")
		if !strings.HasPrefix(name, "caldera.") {
			continue
		}
		is := Issue{Message: fmt.Sprintf("%s{...} creates an object, which a policy condition cannot do: read the variables instead", name)}
		if loc := a.SourceInfo().GetStartLocation(n.ID()); loc.Line() > 0 {
			is.Line, is.Column = loc.Line(), loc.Column()+1
		}
		issues = append(issues, is)
	}
	return issues
}

// taskReferences returns the task names an expression reads from tasks with a constant key
// (tasks.worker, tasks['worker']), sorted; a presence test (has(tasks.worker), tasks[?'worker'],
// 'worker' in tasks) is not a reference.
func taskReferences(a *ast.AST) []string {
	isTasks := func(e ast.Expr) bool {
		return e.Kind() == ast.IdentKind && e.AsIdent() == VarTasks
	}
	seen := map[string]bool{}
	ast.PreOrderVisit(a.Expr(), ast.NewExprVisitor(func(e ast.Expr) {
		switch e.Kind() {
		case ast.SelectKind:
			s := e.AsSelect()
			if !s.IsTestOnly() && isTasks(s.Operand()) {
				seen[s.FieldName()] = true
			}
		case ast.CallKind:
			c := e.AsCall()
			if c.FunctionName() != operators.Index || len(c.Args()) != 2 || !isTasks(c.Args()[0]) {
				return
			}
			if k := c.Args()[1]; k.Kind() == ast.LiteralKind {
				if s, ok := k.AsLiteral().(types.String); ok {
					seen[string(s)] = true
				}
			}
		}
	}))
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Expression is a compiled policy condition. It is safe for concurrent use.
//
// The run-time cost limit is enforced before the expression runs, from the sizes of the values it
// reads: when they are within the bounds the compile-time estimate assumed (see
// Input.WithinBounds), that estimate bounds the cost; otherwise the cost is estimated again with
// the actual sizes, and an expression that could go over the limit does not run. Either way the
// evaluation itself is not tracked: cel-go's run-time cost tracker makes a comprehension take time
// quadratic in its length, which a guard against heavy expressions cannot afford.
type Expression struct {
	text      string
	env       *cel.Env
	checked   *cel.Ast
	program   cel.Program
	minCost   uint64
	maxCost   uint64
	costLimit uint64
	taskRefs  []string
	vars      varBit

	trackedOnce sync.Once
	tracked     cel.Program
	trackedErr  error
}

// trackedProgram returns a program that tracks its cost and stops at the run-time cost limit,
// planning it on first use. Evaluation does not use it; it measures the actual cost in tests.
func (x *Expression) trackedProgram() (cel.Program, error) {
	x.trackedOnce.Do(func() {
		x.tracked, x.trackedErr = x.env.Program(x.checked,
			cel.CostLimit(x.costLimit),
			cel.InterruptCheckFrequency(interruptCheckFrequency),
			cel.EvalOptions(cel.OptOptimize),
		)
	})
	return x.tracked, x.trackedErr
}

// String returns the expression's text.
func (x *Expression) String() string {
	return x.text
}

// EstimatedCost returns the compile-time estimate of the expression's cost: its least and its
// greatest.
func (x *Expression) EstimatedCost() (least, greatest uint64) {
	return x.minCost, x.maxCost
}

// TaskReferences returns the task names the expression reads from tasks with a constant key
// (tasks.worker or tasks['worker']), sorted. A job whose spec has no such task makes the
// expression fail at run time.
func (x *Expression) TaskReferences() []string {
	return append([]string(nil), x.taskRefs...)
}

// EvaluateBool evaluates the expression against in. A failure is an *EvalError; one caused by
// the run-time cost limit wraps ErrCostLimitExceeded, one caused by ctx wraps ctx.Err().
func (x *Expression) EvaluateBool(ctx context.Context, in *Input) (bool, error) {
	if in == nil {
		return false, &EvalError{Expression: x.text, Err: errors.New("no input was given to evaluate it against")}
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if err := x.checkCost(in); err != nil {
		return false, err
	}
	out, _, err := x.program.ContextEval(ctx, in)
	if err != nil {
		return false, x.evalError(ctx, err)
	}
	b, ok := out.(types.Bool)
	if !ok {
		return false, &EvalError{Expression: x.text, Err: fmt.Errorf("it returned %s, not bool", out.Type().TypeName())}
	}
	return bool(b), nil
}

// checkCost returns an error wrapping ErrCostLimitExceeded when the expression could cost more
// than the run-time limit on in.
func (x *Expression) checkCost(in *Input) error {
	if x.maxCost <= x.costLimit && x.vars&^in.fitting() == 0 {
		return nil
	}
	bound, err := x.costBound(in)
	if err != nil {
		return &EvalError{Expression: x.text, Err: fmt.Errorf("%w: its cost cannot be bounded: %v", ErrCostLimitExceeded, err)}
	}
	if bound <= x.costLimit {
		return nil
	}
	actual := in.measure(x.vars)
	var big []string
	for _, name := range variableNames {
		big = append(big, oversize(name, actual[name], varShapes[name], 3-len(big))...)
	}
	why := ""
	if len(big) > 0 {
		why = ", where " + strings.Join(big, ", ") + ","
	}
	return &EvalError{Expression: x.text, Err: fmt.Errorf(
		"%w: on this job's data%s it could cost up to %d, above the run-time limit of %d, so it was not run: simplify it, or make the values it iterates over smaller",
		ErrCostLimitExceeded, why, bound, x.costLimit)}
}

// costBound estimates the greatest cost of the expression on in, from the actual sizes of the
// variables it reads.
func (x *Expression) costBound(in *Input) (uint64, error) {
	est, err := x.env.EstimateCost(x.checked, estimator{shapes: in.measure(x.vars)})
	if err != nil {
		return 0, err
	}
	return est.Max, nil
}

// actualCost evaluates the expression under cost tracking and returns the cost it took.
func (x *Expression) actualCost(ctx context.Context, in *Input) (uint64, error) {
	prg, err := x.trackedProgram()
	if err != nil {
		return 0, err
	}
	_, det, err := prg.ContextEval(ctx, in)
	if det == nil || det.ActualCost() == nil {
		return 0, err
	}
	return *det.ActualCost(), err
}

func (x *Expression) evalError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		err = fmt.Errorf("evaluation interrupted: %w", ctx.Err())
	}
	if strings.HasPrefix(err.Error(), "no such key") {
		err = fmt.Errorf("%w: test for a key that may be missing first, for example 'worker' in tasks && tasks.worker.failed > 0", err)
	}
	return &EvalError{Expression: x.text, Err: err}
}

// estimator gives the cost estimate the sizes of the variables: the bounds of varShapes, or the
// sizes in shapes when it is set.
type estimator struct {
	shapes map[string]*shape
}

// EstimateSize implements checker.CostEstimator.
func (e estimator) EstimateSize(element checker.AstNode) *checker.SizeEstimate {
	path := element.Path()
	if e.shapes != nil {
		// An actual size; for the items of an empty list or map, which have none, the bound.
		if s := shapeOf(e.shapes, path); s != nil && s.fields == nil {
			return &checker.SizeEstimate{Min: 0, Max: s.max}
		}
	}
	if s := shapeOf(varShapes, path); s != nil && s.max > 0 {
		return &checker.SizeEstimate{Min: 0, Max: s.max}
	}
	// Objects and type values are compared field by field or by name: their equality costs
	// little, as the run-time cost counts it.
	switch t := element.Type(); t.Kind() {
	case types.TypeKind:
		return &checker.SizeEstimate{Min: 1, Max: 1}
	case types.StructKind:
		if o, ok := objectTypes[t.TypeName()]; ok {
			return &checker.SizeEstimate{Min: 1, Max: uint64(len(o.fields))}
		}
	}
	return nil
}

// shapeOf follows a cost-estimate path (a variable, then field names, @items, @keys and
// @values) through the shapes of the variables.
func shapeOf(roots map[string]*shape, path []string) *shape {
	if len(path) == 0 {
		return nil
	}
	s := roots[path[0]]
	for _, p := range path[1:] {
		if s == nil {
			return nil
		}
		switch p {
		case "@items", "@values":
			s = s.elem
		case "@keys":
			s = s.key
		default:
			s = s.fields[p]
		}
	}
	return s
}

// EstimateCallCost implements checker.CostEstimator; the standard costs apply.
func (estimator) EstimateCallCost(function, overloadID string, target *checker.AstNode, args []checker.AstNode) *checker.CallEstimate {
	return nil
}
