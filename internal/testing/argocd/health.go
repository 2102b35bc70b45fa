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

// Package argocd runs Argo CD resource health checks (resource_customizations/<group>/<kind>/
// health.lua) the way Argo CD does: on the Lua engine it embeds (github.com/yuin/gopher-lua),
// with the object as the global obj and only the safe standard libraries open, reading back
// the table the script returns. It also runs a check's health_test.yaml, as Argo CD's own test
// harness does for contributed checks. Tests import it; nothing in Caldera does.
package argocd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	lua "github.com/yuin/gopher-lua"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// The health statuses an Argo CD health check may return.
const (
	Healthy     = "Healthy"
	Progressing = "Progressing"
	Degraded    = "Degraded"
	Suspended   = "Suspended"
	Missing     = "Missing"
	Unknown     = "Unknown"
)

// statuses are the values Argo CD accepts in a health check's status.
var statuses = []string{Healthy, Progressing, Degraded, Suspended, Missing, Unknown}

// scriptTimeout bounds one run of a health script, as Argo CD bounds its Lua calls.
const scriptTimeout = time.Second

// Health is what a health check returns.
type Health struct {
	// Status is one of Healthy, Progressing, Degraded, Suspended, Missing and Unknown.
	Status string `json:"status"`
	// Message says why.
	Message string `json:"message,omitempty"`
}

// CustomizationsDir is where Caldera keeps its checks, laid out as Argo CD's
// resource_customizations, relative to the repository root.
const CustomizationsDir = "config/argocd/resource_customizations"

// ScriptPath is the health.lua of group/kind under the resource_customizations folder root.
func ScriptPath(root, group, kind string) string {
	return filepath.Join(root, group, kind, "health.lua")
}

// Run runs script with obj as the global obj and returns the health the script returns. An
// error says the script failed, returned something other than a table, or returned a status
// Argo CD does not know.
func Run(script string, obj *unstructured.Unstructured) (Health, error) {
	l := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer l.Close()
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{
		{lua.LoadLibName, lua.OpenPackage},
		{lua.BaseLibName, lua.OpenBase},
		{lua.TabLibName, lua.OpenTable},
		{lua.StringLibName, lua.OpenString},
		{lua.MathLibName, lua.OpenMath},
	} {
		if err := l.CallByParam(lua.P{Fn: l.NewFunction(lib.open), NRet: 0, Protect: true}, lua.LString(lib.name)); err != nil {
			return Health{}, fmt.Errorf("opening the Lua library %q: %w", lib.name, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), scriptTimeout)
	defer cancel()
	l.SetContext(ctx)
	l.SetGlobal("obj", toLua(l, obj.Object))
	if err := l.DoString(script); err != nil {
		return Health{}, fmt.Errorf("running the health script: %w", err)
	}
	table, ok := l.Get(-1).(*lua.LTable)
	if !ok {
		return Health{}, fmt.Errorf("the health script returned %s, not a table", l.Get(-1).Type())
	}
	health := Health{
		Status:  lua.LVAsString(table.RawGetString("status")),
		Message: lua.LVAsString(table.RawGetString("message")),
	}
	if !slices.Contains(statuses, health.Status) {
		return Health{}, fmt.Errorf("the health script returned the status %q: want one of %v", health.Status, statuses)
	}
	return health, nil
}

// RunFile runs the health.lua at path on obj.
func RunFile(path string, obj *unstructured.Unstructured) (Health, error) {
	script, err := os.ReadFile(path)
	if err != nil {
		return Health{}, err
	}
	return Run(string(script), obj)
}

// toLua converts a value of an unstructured object to Lua: maps to tables with string keys,
// lists to sequences, numbers to numbers.
func toLua(l *lua.LState, v any) lua.LValue {
	switch v := v.(type) {
	case nil:
		return lua.LNil
	case bool:
		return lua.LBool(v)
	case string:
		return lua.LString(v)
	case int64:
		return lua.LNumber(v)
	case int32:
		return lua.LNumber(v)
	case int:
		return lua.LNumber(v)
	case float64:
		return lua.LNumber(v)
	case map[string]any:
		t := l.NewTable()
		for k, e := range v {
			t.RawSetString(k, toLua(l, e))
		}
		return t
	case []any:
		t := l.NewTable()
		for _, e := range v {
			t.Append(toLua(l, e))
		}
		return t
	}
	return lua.LString(fmt.Sprint(v))
}

// TestCase is one entry of a health_test.yaml.
type TestCase struct {
	// HealthStatus is the health the script must return.
	HealthStatus Health `json:"healthStatus"`
	// InputPath is the object, relative to the folder of health_test.yaml.
	InputPath string `json:"inputPath"`
}

// TestFile is a health_test.yaml: the cases of one check.
type TestFile struct {
	Tests []TestCase `json:"tests"`
}

// ReadTests reads the health_test.yaml in the check's folder dir.
func ReadTests(dir string) (TestFile, error) {
	var tf TestFile
	raw, err := os.ReadFile(filepath.Join(dir, "health_test.yaml"))
	if err != nil {
		return tf, err
	}
	if err := yaml.UnmarshalStrict(raw, &tf); err != nil {
		return tf, fmt.Errorf("%s: %w", filepath.Join(dir, "health_test.yaml"), err)
	}
	if len(tf.Tests) == 0 {
		return tf, fmt.Errorf("%s has no tests", filepath.Join(dir, "health_test.yaml"))
	}
	return tf, nil
}

// ReadObject reads a YAML object, such as a test case's input.
func ReadObject(path string) (*unstructured.Unstructured, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	obj := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(raw, &obj.Object); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return obj, nil
}
