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

package allocate

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/caldera-sh/caldera/internal/topology"
	"github.com/caldera-sh/caldera/scheduler/actions/enqueue"
	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/conf"
	"github.com/caldera-sh/caldera/scheduler/framework"
	st "github.com/caldera-sh/caldera/scheduler/internal/testing"
	"github.com/caldera-sh/caldera/scheduler/plugins/networktopology"
)

// chooseDomain chooses what trying every domain chooses, and tries fewer: only the first by name
// where the trial succeeds when no plugin scores HyperNodes, and, when every score has a bound,
// the domains from the highest bound down until none left can score more.
func TestChooseDomainTriesFewerDomainsAndChoosesTheSame(t *testing.T) {
	reg := framework.Registry{
		Plugins: map[string]framework.PluginBuilder{networktopology.Name: networktopology.New,
			unboundedName: func(conf.Arguments) (framework.Plugin, error) { return unboundedScore{}, nil }},
		Actions:         map[string]framework.Action{enqueue.Name: enqueue.New()},
		ActionArguments: map[string]framework.ActionArgumentsCheck{enqueue.Name: func(conf.Arguments) error { return nil }},
	}
	const unscored, scored = "actions: \"enqueue\"\n", "actions: \"enqueue\"\ntiers:\n- plugins:\n  - name: network-topology-aware\n"
	const unbounded = scored + "  - name: " + unboundedName + "\n"
	for name, tc := range map[string]struct {
		config string
		// busy is the CPU already used in some racks (on their first node).
		busy map[string]string
		// fails are the racks where the trial fails; empty, those where it succeeds placing nothing.
		fails, empty map[string]bool
		tried        []string
		want         string
		// closest is the domain named as the closest when none is chosen.
		closest string
	}{
		"no plugin scores HyperNodes: the first by name": {config: unscored, busy: map[string]string{"s2": "4"}, tried: []string{"s0"}, want: "s0"},
		"scored, all alike: the first by name":           {config: scored, tried: []string{"s0"}, want: "s0"},
		"scored: the busiest, tried alone":               {config: scored, busy: map[string]string{"s2": "4"}, tried: []string{"s2"}, want: "s2"},
		"scored: the busiest fails, the next is tried": {
			config: scored, busy: map[string]string{"s1": "2", "s2": "4"}, fails: map[string]bool{"s2": true},
			tried: []string{"s2", "s1"}, want: "s1",
		},
		"scored: a trial scoring below its bound, the next bound is tried": {
			config: scored, busy: map[string]string{"s1": "3", "s2": "3"}, empty: map[string]bool{"s1": true},
			tried: []string{"s1", "s2"}, want: "s2",
		},
		"scored, one score with no bound: every domain": {
			config: unbounded, busy: map[string]string{"s2": "4"}, tried: []string{"s0", "s1", "s2", "s3"}, want: "s2",
		},
		"scored: every trial fails, the closest first by name": {
			config: scored, busy: map[string]string{"s2": "4"}, fails: map[string]bool{"s0": true, "s1": true, "s2": true, "s3": true},
			tried: []string{"s2", "s0", "s1", "s3"}, closest: "s0",
		},
	} {
		t.Run(name, func(t *testing.T) {
			objs := []any{st.MakeQueue("default", 1).Obj(),
				st.MakePodGroup("ns", "pg", 1).NetworkTopology("hard", 1, "").Obj(),
				st.MakePod("ns", "pg-0").Group("pg").Req("1", "").Obj()}
			for r := range 4 {
				rack := fmt.Sprintf("s%d", r)
				a, b := fmt.Sprintf("n%d", 2*r), fmt.Sprintf("n%d", 2*r+1)
				objs = append(objs, st.MakeNode(a, "8", "8Gi").Obj(), st.MakeNode(b, "8", "8Gi").Obj(), st.MakeHyperNode(rack, 1, a, b))
				if cpu, ok := tc.busy[rack]; ok {
					objs = append(objs, st.MakePod("other", "busy-"+rack).Node(a).Req(cpu, "").Phase(corev1.PodRunning).Obj())
				}
			}
			ssn, _ := st.Session(t, st.NewSnapshot(t, objs...), reg, tc.config, st.Epoch)
			j := ssn.Jobs[api.GroupJobID("ns", "pg")]
			topo := ssn.Topology()
			one := api.Resource{MilliCPU: 1000}
			want := domainWant{limit: topology.LimitOf(j.PodGroup.Spec.NetworkTopology, topo), upper: one}
			rackOf := func(nodes []*api.NodeInfo) string {
				for _, d := range topo.Domains {
					if d.Nodes[0] == nodes[0].Name {
						return d.Name
					}
				}
				return ""
			}
			var tried []string
			attempt := func(nodes []*api.NodeInfo, _ recorder) (bool, int, func()) {
				rack := rackOf(nodes)
				tried = append(tried, rack)
				if tc.fails[rack] || tc.empty[rack] {
					return !tc.fails[rack], 0, func() {}
				}
				nodes[0].Used.Add(&one)
				return true, 1, func() { nodes[0].Used.Sub(&one) }
			}

			// What trying every domain of the tier chooses: the best score, the first by name.
			var every string
			var bestScore float64
			for _, d := range topo.Domains {
				nodes := ssn.DomainNodes(d)
				if ok, _, undo := attempt(nodes, nil); ok {
					if score := ssn.HyperNodeScore(j, nodes); every == "" || score > bestScore {
						every, bestScore = d.Name, score
					}
					undo()
				}
			}
			tried = nil

			best, _, miss := chooseDomain(ssn, topo, j, want, attempt)
			if diff := cmp.Diff(tc.tried, tried); diff != "" {
				t.Errorf("domains tried (-want +got):\n%s", diff)
			}
			got := ""
			if best != nil {
				got = best.Name
			} else if miss.closest == nil || miss.closest.Name != tc.closest {
				t.Errorf("closest domain %v, want %s", miss.closest, tc.closest)
			}
			if got != tc.want || tc.config != unscored && got != every {
				t.Errorf("chose %q, want %q (trying every domain chooses %q)", got, tc.want, every)
			}
		})
	}
}

// unboundedName is a test plugin scoring every HyperNode 0, with no bound.
const unboundedName = "unbounded-hypernode-score"

type unboundedScore struct{}

func (unboundedScore) Name() string { return unboundedName }
func (unboundedScore) OnSessionOpen(ssn *framework.Session) {
	ssn.AddHyperNodeOrderFn(unboundedName, func(*api.JobInfo, []*api.NodeInfo) float64 { return 0 }, nil)
}
func (unboundedScore) OnSessionClose(*framework.Session) {}
