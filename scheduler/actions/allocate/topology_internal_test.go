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

	"github.com/caldera-sh/caldera/internal/topology"
	"github.com/caldera-sh/caldera/scheduler/actions/enqueue"
	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/conf"
	"github.com/caldera-sh/caldera/scheduler/framework"
	st "github.com/caldera-sh/caldera/scheduler/internal/testing"
	"github.com/caldera-sh/caldera/scheduler/plugins/networktopology"
)

// chooseDomain places a gang on trial in every domain of a tier only when a plugin scores
// HyperNodes; otherwise it stops at the first domain, by name, where the trial succeeds.
func TestChooseDomainTriesEveryDomainOnlyWhenScored(t *testing.T) {
	reg := framework.Registry{
		Plugins:         map[string]framework.PluginBuilder{networktopology.Name: networktopology.New},
		Actions:         map[string]framework.Action{enqueue.Name: enqueue.New()},
		ActionArguments: map[string]framework.ActionArgumentsCheck{enqueue.Name: func(conf.Arguments) error { return nil }},
	}
	objs := []any{st.MakeQueue("default", 1).Obj(),
		st.MakePodGroup("ns", "pg", 1).NetworkTopology("hard", 1, "").Obj(),
		st.MakePod("ns", "pg-0").Group("pg").Req("1", "").Obj()}
	for r := range 4 {
		a, b := fmt.Sprintf("n%d", 2*r), fmt.Sprintf("n%d", 2*r+1)
		objs = append(objs, st.MakeNode(a, "8", "8Gi").Obj(), st.MakeNode(b, "8", "8Gi").Obj(),
			st.MakeHyperNode(fmt.Sprintf("s%d", r), 1, a, b))
	}
	for name, tc := range map[string]struct {
		config string
		want   []string
	}{
		"no plugin scores HyperNodes": {config: "actions: \"enqueue\"\n", want: []string{"s0"}},
		"network-topology-aware scores them": {
			config: "actions: \"enqueue\"\ntiers:\n- plugins:\n  - name: network-topology-aware\n",
			want:   []string{"s0", "s1", "s2", "s3"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			ssn, _ := st.Session(t, st.NewSnapshot(t, objs...), reg, tc.config, st.Epoch)
			j := ssn.Jobs[api.GroupJobID("ns", "pg")]
			topo := ssn.Topology()
			want := domainWant{limit: topology.LimitOf(j.PodGroup.Spec.NetworkTopology, topo)}
			var tried []string
			best, _, _ := chooseDomain(ssn, topo, j, want, func(nodes []*api.NodeInfo, _ recorder) (bool, int, func()) {
				for _, d := range topo.Domains {
					if d.Nodes[0] == nodes[0].Name {
						tried = append(tried, d.Name)
					}
				}
				return true, 1, func() {}
			})
			if diff := cmp.Diff(tc.want, tried); diff != "" {
				t.Errorf("domains tried (-want +got):\n%s", diff)
			}
			if best == nil || best.Name != "s0" {
				t.Errorf("chose %v, want s0", best)
			}
		})
	}
}
