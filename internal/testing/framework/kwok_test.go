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

package framework

import (
	"os"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

func TestDelayPodStart(t *testing.T) {
	stages, err := os.ReadFile(StagesPath())
	if err != nil {
		t.Fatal(err)
	}
	delayed, err := delayPodStart(stages, 1500*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range strings.Split(string(delayed), "\n---\n") {
		var stage struct {
			Metadata struct{ Name string }
			Spec     struct {
				Delay *struct{ DurationMilliseconds int64 } `json:"delay"`
			}
		}
		if err := yaml.Unmarshal([]byte(doc), &stage); err != nil {
			t.Fatalf("the delayed stages do not parse: %v", err)
		}
		if stage.Metadata.Name != "caldera-pod-ready" {
			continue
		}
		if stage.Spec.Delay == nil || stage.Spec.Delay.DurationMilliseconds != 1500 {
			t.Fatalf("caldera-pod-ready delay = %+v, want 1500 ms", stage.Spec.Delay)
		}
		return
	}
	t.Fatal("no caldera-pod-ready stage")
}
