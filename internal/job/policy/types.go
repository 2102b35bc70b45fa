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
	"fmt"
	"reflect"
	"sort"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// The CEL type names of the objects a policy expression sees.
const (
	// JobTypeName is the CEL type of the variable job.
	JobTypeName = "caldera.Job"
	// TaskTypeName is the CEL type of the variable task and of the values of tasks.
	TaskTypeName = "caldera.Task"
	// PodTypeName is the CEL type of the variable pod.
	PodTypeName = "caldera.Pod"
	// ContainerTypeName is the CEL type of the items of pod.containers and pod.initContainers.
	ContainerTypeName = "caldera.Container"
	// PodConditionTypeName is the CEL type of the items of pod.conditions.
	PodConditionTypeName = "caldera.PodCondition"
)

// shape bounds the size of a value for the compile-time cost estimate: the length of a string,
// the number of items of a list or entries of a map, and, through fields, elem and key, the
// shapes of what the value holds.
type shape struct {
	max    uint64
	fields map[string]*shape
	elem   *shape
	key    *shape
}

// fieldDef is one field of an object type: its CEL type, its size bound and how to read it from
// the object's payload.
type fieldDef struct {
	name  string
	typ   *types.Type
	shape *shape
	get   func(payload any) ref.Val
	ft    *types.FieldType
}

// objectType is a CEL object type whose values are *object.
type objectType struct {
	name    string
	celType *types.Type
	fields  []*fieldDef
	byName  map[string]*fieldDef
	names   []string
	shape   *shape
	payload reflect.Type
}

// object is a value of an objectType: the type and the Go value its fields are read from.
type object struct {
	t       *objectType
	payload any
}

func newObjectType(name string, payload reflect.Type, fields ...*fieldDef) *objectType {
	t := &objectType{
		name:    name,
		celType: types.NewObjectType(name),
		fields:  fields,
		byName:  make(map[string]*fieldDef, len(fields)),
		shape:   &shape{fields: make(map[string]*shape, len(fields))},
		payload: payload,
	}
	for _, f := range fields {
		get := f.get
		f.ft = &types.FieldType{
			Type: f.typ,
			IsSet: func(target any) bool {
				o, ok := target.(*object)
				if !ok || o.t != t {
					return false
				}
				return !isZero(get(o.payload))
			},
			GetFrom: func(target any) (any, error) {
				o, ok := target.(*object)
				if !ok || o.t != t {
					return nil, fmt.Errorf("field %s: value is not a %s", f.name, t.name)
				}
				return get(o.payload), nil
			},
		}
		t.byName[f.name] = f
		t.names = append(t.names, f.name)
		t.shape.fields[f.name] = f.shape
	}
	sort.Strings(t.names)
	return t
}

func (t *objectType) newObject(payload any) *object {
	return &object{t: t, payload: payload}
}

func isZero(v ref.Val) bool {
	z, ok := v.(traits.Zeroer)
	return ok && z.IsZeroValue()
}

func stringField(name string, max uint64, get func(any) string) *fieldDef {
	return &fieldDef{
		name:  name,
		typ:   types.StringType,
		shape: &shape{max: max},
		get:   func(p any) ref.Val { return types.String(get(p)) },
	}
}

func intField(name string, get func(any) int64) *fieldDef {
	return &fieldDef{
		name: name,
		typ:  types.IntType,
		get:  func(p any) ref.Val { return types.Int(get(p)) },
	}
}

func stringMapField(name string, entries, keyMax, valueMax uint64, get func(any) map[string]string) *fieldDef {
	return &fieldDef{
		name:  name,
		typ:   types.NewMapType(types.StringType, types.StringType),
		shape: &shape{max: entries, key: &shape{max: keyMax}, elem: &shape{max: valueMax}},
		get:   func(p any) ref.Val { return types.NewStringStringMap(adapter, get(p)) },
	}
}

func objectListField(name string, items uint64, elem *objectType, get func(any) []ref.Val) *fieldDef {
	return &fieldDef{
		name:  name,
		typ:   types.NewListType(elem.celType),
		shape: &shape{max: items, elem: elem.shape},
		get:   func(p any) ref.Val { return types.NewRefValList(adapter, get(p)) },
	}
}

// ConvertToNative implements ref.Val: an object converts to its own Go type only.
func (o *object) ConvertToNative(typeDesc reflect.Type) (any, error) {
	switch typeDesc {
	case reflect.TypeOf(o):
		return o, nil
	case o.t.payload:
		return o.payload, nil
	}
	return nil, fmt.Errorf("a %s cannot be converted to %v", o.t.name, typeDesc)
}

// ConvertToType implements ref.Val.
func (o *object) ConvertToType(typeVal ref.Type) ref.Val {
	if typeVal == types.TypeType {
		return o.t.celType
	}
	if typeVal.TypeName() == o.t.name {
		return o
	}
	return types.NewErr("type conversion error from '%s' to '%s'", o.t.name, typeVal.TypeName())
}

// Equal implements ref.Val: two objects are equal when they are of the same type and all their
// fields are equal.
func (o *object) Equal(other ref.Val) ref.Val {
	p, ok := other.(*object)
	if !ok || p.t != o.t {
		return types.False
	}
	if p == o || p.payload == o.payload {
		return types.True
	}
	for _, f := range o.t.fields {
		if f.get(o.payload).Equal(f.get(p.payload)) != types.True {
			return types.False
		}
	}
	return types.True
}

// Type implements ref.Val.
func (o *object) Type() ref.Type {
	return o.t.celType
}

// Value implements ref.Val. It returns the object itself, which field accessors read.
func (o *object) Value() any {
	return o
}

// IsZeroValue implements traits.Zeroer: an object is zero when all its fields are.
func (o *object) IsZeroValue() bool {
	for _, f := range o.t.fields {
		if !isZero(f.get(o.payload)) {
			return false
		}
	}
	return true
}

// Get implements traits.Indexer for field access on values whose type is known only at run time.
func (o *object) Get(index ref.Val) ref.Val {
	name, ok := index.(types.String)
	if !ok {
		return types.MaybeNoSuchOverloadErr(index)
	}
	f, found := o.t.byName[string(name)]
	if !found {
		return types.NewErr("no such field '%s' in %s", name, o.t.name)
	}
	return f.get(o.payload)
}

// IsSet implements traits.FieldTester.
func (o *object) IsSet(field ref.Val) ref.Val {
	name, ok := field.(types.String)
	if !ok {
		return types.MaybeNoSuchOverloadErr(field)
	}
	f, found := o.t.byName[string(name)]
	if !found {
		return types.NewErr("no such field '%s' in %s", name, o.t.name)
	}
	return types.Bool(!isZero(f.get(o.payload)))
}

// provider serves the object types to the checker and the interpreter and adapts values,
// delegating everything else to the environment's own provider and adapter.
type provider struct {
	base        types.Provider
	baseAdapter types.Adapter
	objects     map[string]*objectType
}

// adapter converts Go values to CEL values for the lists and maps the object fields build. Every
// value stored in them is already a ref.Val, so the plain registry is enough.
var adapter = types.DefaultTypeAdapter

func withObjectTypes(objects map[string]*objectType) cel.EnvOption {
	return func(env *cel.Env) (*cel.Env, error) {
		p := &provider{
			base:        env.CELTypeProvider(),
			baseAdapter: env.CELTypeAdapter(),
			objects:     objects,
		}
		env, err := cel.CustomTypeAdapter(p)(env)
		if err != nil {
			return nil, err
		}
		return cel.CustomTypeProvider(p)(env)
	}
}

// EnumValue implements types.Provider.
func (p *provider) EnumValue(enumName string) ref.Val {
	return p.base.EnumValue(enumName)
}

// FindIdent implements types.Provider.
func (p *provider) FindIdent(identName string) (ref.Val, bool) {
	if o, found := p.objects[identName]; found {
		return o.celType, true
	}
	return p.base.FindIdent(identName)
}

// FindStructType implements types.Provider.
func (p *provider) FindStructType(structType string) (*types.Type, bool) {
	if o, found := p.objects[structType]; found {
		return types.NewTypeTypeWithParam(o.celType), true
	}
	return p.base.FindStructType(structType)
}

// FindStructFieldNames implements types.Provider.
func (p *provider) FindStructFieldNames(structType string) ([]string, bool) {
	if o, found := p.objects[structType]; found {
		return append([]string(nil), o.names...), true
	}
	return p.base.FindStructFieldNames(structType)
}

// FindStructFieldType implements types.Provider.
func (p *provider) FindStructFieldType(structType, fieldName string) (*types.FieldType, bool) {
	if o, found := p.objects[structType]; found {
		f, ok := o.byName[fieldName]
		if !ok {
			return nil, false
		}
		return f.ft, true
	}
	return p.base.FindStructFieldType(structType, fieldName)
}

// NewValue implements types.Provider. Policy objects are read-only: expressions cannot create them.
func (p *provider) NewValue(structType string, fields map[string]ref.Val) ref.Val {
	if _, found := p.objects[structType]; found {
		return types.NewErr("a %s cannot be created in a policy expression", structType)
	}
	return p.base.NewValue(structType, fields)
}

// NativeToValue implements types.Adapter.
func (p *provider) NativeToValue(value any) ref.Val {
	if v, ok := value.(ref.Val); ok {
		return v
	}
	return p.baseAdapter.NativeToValue(value)
}
