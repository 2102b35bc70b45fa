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

package conf

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Arguments are the arguments of a plugin or an action: names to strings, numbers or booleans.
// Values written as strings ("10", "true") are accepted where a number or boolean is wanted,
// as Volcano accepts them.
type Arguments map[string]any

// Int returns the integer argument key, or def when it is absent.
func (a Arguments) Int(key string, def int) (int, error) {
	v, ok := a[key]
	if !ok || v == nil {
		return def, nil
	}
	switch x := v.(type) {
	case float64:
		if x != math.Trunc(x) || x > math.MaxInt32 || x < math.MinInt32 {
			return def, fmt.Errorf("%s: must be a whole number, got %v", key, x)
		}
		return int(x), nil
	case int:
		return x, nil
	case int64:
		return int(x), nil
	case string:
		n, err := strconv.Atoi(strings.TrimSpace(x))
		if err != nil {
			return def, fmt.Errorf("%s: must be a whole number, got %q", key, x)
		}
		return n, nil
	default:
		return def, fmt.Errorf("%s: must be a whole number, got %v", key, v)
	}
}

// Float returns the number argument key, or def when it is absent.
func (a Arguments) Float(key string, def float64) (float64, error) {
	v, ok := a[key]
	if !ok || v == nil {
		return def, nil
	}
	switch x := v.(type) {
	case float64:
		return x, nil
	case int:
		return float64(x), nil
	case int64:
		return float64(x), nil
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err != nil {
			return def, fmt.Errorf("%s: must be a number, got %q", key, x)
		}
		return f, nil
	default:
		return def, fmt.Errorf("%s: must be a number, got %v", key, v)
	}
}

// Bool returns the boolean argument key, or def when it is absent.
func (a Arguments) Bool(key string, def bool) (bool, error) {
	v, ok := a[key]
	if !ok || v == nil {
		return def, nil
	}
	switch x := v.(type) {
	case bool:
		return x, nil
	case string:
		b, err := strconv.ParseBool(strings.TrimSpace(x))
		if err != nil {
			return def, fmt.Errorf("%s: must be true or false, got %q", key, x)
		}
		return b, nil
	default:
		return def, fmt.Errorf("%s: must be true or false, got %v", key, v)
	}
}

// String returns the string argument key, or def when it is absent.
func (a Arguments) String(key string, def string) (string, error) {
	v, ok := a[key]
	if !ok || v == nil {
		return def, nil
	}
	switch x := v.(type) {
	case string:
		return x, nil
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), nil
	case bool:
		return strconv.FormatBool(x), nil
	default:
		return def, fmt.Errorf("%s: must be a string, got %v", key, v)
	}
}

// Duration returns the Go duration argument key (such as "1h30m"), or def when it is absent.
func (a Arguments) Duration(key string, def time.Duration) (time.Duration, error) {
	v, ok := a[key]
	if !ok || v == nil {
		return def, nil
	}
	s, ok := v.(string)
	if !ok {
		return def, fmt.Errorf("%s: must be a duration such as \"30m\" or \"1h2m3s\", got %v", key, v)
	}
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		return def, fmt.Errorf("%s: must be a duration such as \"30m\" or \"1h2m3s\", got %q", key, s)
	}
	if d <= 0 {
		return def, fmt.Errorf("%s: must be a positive duration, got %q", key, s)
	}
	return d, nil
}

// CheckKeys reports the keys of a that are neither in known nor start with one of the
// prefixes, naming the known keys so a typo can be fixed.
func (a Arguments) CheckKeys(known []string, prefixes ...string) error {
	var errs []error
	keys := make([]string, 0, len(a))
	for k := range a {
		keys = append(keys, k)
	}
	sort.Strings(keys)
outer:
	for _, k := range keys {
		for _, kk := range known {
			if k == kk {
				continue outer
			}
		}
		for _, p := range prefixes {
			if strings.HasPrefix(k, p) {
				continue outer
			}
		}
		errs = append(errs, fmt.Errorf("%s: unknown argument; the arguments are %s", k, strings.Join(known, ", ")))
	}
	return errors.Join(errs...)
}
