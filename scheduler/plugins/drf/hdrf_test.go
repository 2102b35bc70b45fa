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

package drf_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	st "github.com/caldera-sh/caldera/scheduler/internal/testing"
	"github.com/caldera-sh/caldera/scheduler/plugins/drf"
	"github.com/caldera-sh/caldera/scheduler/registry"
)

const hdrfConf = `actions: "enqueue, allocate"
tiers:
- plugins:
  - name: priority
  - name: gang
- plugins:
  - name: drf
    enableHierarchy: true
  - name: predicates
`

// queue is a queue at path (root/...) with the levels' weights.
func queue(name, path, weights string) *schedulingv1beta1.Queue {
	return st.MakeQueue(name, 1).Annotation(drf.HierarchyAnnotation, path).Annotation(drf.HierarchyWeightsAnnotation, weights).Obj()
}

// job is an admitted job of n pending pods requesting cpu and memory each, in queue q.
func job(name, q string, n int, cpu, mem string) []any {
	out := []any{st.MakePodGroup("ns", name, 0).Queue(q).Phase(schedulingv1beta1.PodGroupInqueue).Obj()}
	for i := 0; i < n; i++ {
		out = append(out, st.MakePod("ns", fmt.Sprintf("%s-%d", name, i)).Group(name).Req(cpu, mem).Obj())
	}
	return out
}

func TestHierarchicalDRF(t *testing.T) {
	cases := map[string]struct {
		objs []any
		// want counts the bound pods per job.
		want map[string]int
	}{
		// sci and eng weigh the same; eng's half goes to dev (cpu) and prod (memory) alike.
		"a level's share is its least served demanding child's": {
			objs: st.Flat(st.MakeNode("n", "10", "10Gi").Obj(),
				queue("sci", "root/sci", "100/50"), queue("dev", "root/eng/dev", "100/50/50"), queue("prod", "root/eng/prod", "100/50/50"),
				job("pg1", "sci", 10, "1", "1Gi"), job("pg21", "dev", 10, "1", ""), job("pg22", "prod", 10, "", "1Gi")),
			want: map[string]int{"pg1": 5, "pg21": 5, "pg22": 5},
		},
		// Once the cpu is gone, the cpu jobs are saturated and the memory ones share the rest.
		"saturated children count as they are": {
			objs: st.Flat(st.MakeNode("n", "30", "30Gi").Obj(),
				queue("pg1", "root/pg1", "100/25"), queue("pg2", "root/pg2", "100/25"),
				queue("pg31", "root/pg3/pg31", "100/25/50"), queue("pg4", "root/pg4", "100/25"),
				job("pg1", "pg1", 30, "1", ""), job("pg2", "pg2", 30, "1", ""),
				job("pg31", "pg31", 30, "1", ""), job("pg32", "pg31", 30, "", "1Gi"), job("pg4", "pg4", 30, "", "1Gi")),
			want: map[string]int{"pg1": 10, "pg2": 10, "pg31": 10, "pg32": 15, "pg4": 15},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := st.NewSnapshot(t, tc.objs...)
			ssn, rec := st.Session(t, s, registry.Default(), hdrfConf, st.Epoch.Add(time.Hour))
			ssn.Run()
			ssn.Close()
			got := map[string]int{}
			for pod := range rec.Binds {
				name := strings.TrimPrefix(pod, "ns/")
				got[name[:strings.LastIndex(name, "-")]]++
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("bound pods per job (-want +got):\n%s", diff)
			}
		})
	}
}

func TestHierarchicalDRFReclaim(t *testing.T) {
	conf := strings.Replace(hdrfConf, `"enqueue, allocate"`, `"enqueue, allocate, reclaim"`, 1)
	// running is a job of n one-cpu pods running on node n.
	running := func(name, q string, n int) []any {
		out := []any{st.MakePodGroup("ns", name, 1).Queue(q).Phase(schedulingv1beta1.PodGroupRunning).Obj()}
		for i := 0; i < n; i++ {
			out = append(out, st.MakePod("ns", fmt.Sprintf("%s-%d", name, i)).Group(name).Req("1", "").Node("n").Phase(corev1.PodRunning).Obj())
		}
		return out
	}
	pending := func(name, q string) []any {
		return []any{st.MakePodGroup("ns", name, 1).Queue(q).Phase(schedulingv1beta1.PodGroupInqueue).Obj(),
			st.MakePod("ns", name+"-0").Group(name).Req("1", "").Obj()}
	}
	queues := st.Flat(queue("sci", "root/sci", "100/50"), queue("dev", "root/eng/dev", "100/50/50"))
	cases := map[string]struct {
		objs    []any
		evicted int
	}{
		"a branch holding nothing reclaims from one holding the cluster": {
			objs: st.Flat(st.MakeNode("n", "10", "10Gi").Obj(), queues, running("sci-job", "sci", 10), pending("dev-job", "dev")), evicted: 1,
		},
		"branches of equal weight holding half each keep their pods": {
			objs: st.Flat(st.MakeNode("n", "10", "10Gi").Obj(), queues, running("sci-job", "sci", 5), running("dev-old", "dev", 5), pending("dev-job", "dev")),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := st.NewSnapshot(t, tc.objs...)
			ssn, rec := st.Session(t, s, registry.Default(), conf, st.Epoch.Add(time.Hour))
			ssn.Run()
			ssn.Close()
			if got := len(rec.Evictions); got != tc.evicted {
				t.Errorf("%d evictions (%v), want %d", got, rec.Evictions, tc.evicted)
			}
		})
	}
}
