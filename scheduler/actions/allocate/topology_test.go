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

package allocate_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	topologyv1alpha1 "github.com/caldera-sh/caldera/api/topology/v1alpha1"
	"github.com/caldera-sh/caldera/scheduler/api"
	st "github.com/caldera-sh/caldera/scheduler/internal/testing"
)

const topologyConf = `actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
- plugins:
  - name: predicates
  - name: proportion
  - name: nodeorder
  - name: binpack
  - name: network-topology-aware
`

// racks are eight 8-cpu nodes n0..n7 in Volcano's three-tier layout: racks s0 (n0, n1), s1 (n2,
// n3), s2 (n4, n5) and s3 (n6, n7) in tier 1 (tierName rack), blocks s4 (s0, s1) and s5 (s2,
// s3) in tier 2 (block), and s6 (s4, s5) in tier 3 (spine).
func racks() []any {
	var out []any
	for i := 0; i < 8; i++ {
		out = append(out, st.MakeNode(fmt.Sprintf("n%d", i), "8", "8Gi").Obj())
	}
	for _, hn := range []*topologyv1alpha1.HyperNode{
		st.MakeHyperNode("s0", 1, "n0", "n1"), st.MakeHyperNode("s1", 1, "n2", "n3"),
		st.MakeHyperNode("s2", 1, "n4", "n5"), st.MakeHyperNode("s3", 1, "n6", "n7"),
		st.MakeHyperNode("s4", 2, "s0", "s1"), st.MakeHyperNode("s5", 2, "s2", "s3"),
		st.MakeHyperNode("s6", 3, "s4", "s5"),
	} {
		hn.Spec.TierName = []string{"", "rack", "block", "spine"}[hn.Spec.Tier]
		out = append(out, hn)
	}
	return out
}

// busy is a running pod of another scheduler holding cpu on a node.
func busy(node, cpu string) *corev1.Pod {
	return st.MakePod("other", "busy-"+node+"-"+cpu).Scheduler("default-scheduler").Node(node).Phase(corev1.PodRunning).Req(cpu, "").Obj()
}

// topologyGang is a gang of n pods of cpu each whose PodGroup has a network topology.
func topologyGang(name string, n int, cpu string, mode string, tier int32, tierName string) []any {
	objs := []any{st.MakePodGroup("ns", name, int32(n)).Phase(schedulingv1beta1.PodGroupInqueue).NetworkTopology(mode, tier, tierName).Obj()}
	for i := 0; i < n; i++ {
		objs = append(objs, st.MakePod("ns", fmt.Sprintf("%s-%d", name, i)).Group(name).Req(cpu, "").Obj())
	}
	return objs
}

func TestAllocateWithinHyperNodes(t *testing.T) {
	queues := []any{st.MakeQueue("default", 1).Obj()}
	cases := map[string]struct {
		objs []any
		// nodes are the nodes every bound pod must be on; binds is how many binds.
		nodes   []string
		binds   int
		message string
	}{
		"hard tier 1: the gang goes to the fullest rack that holds it": {
			objs:  objects(queues, racks(), busy("n2", "1"), busy("n3", "1"), topologyGang("pg", 2, "2", "hard", 1, "")),
			nodes: []string{"n2", "n3"}, binds: 2,
		},
		"hard tier 1: a full rack is passed over for the next fullest": {
			objs: objects(queues, racks(), busy("n2", "6"), busy("n3", "6"), busy("n4", "1"),
				topologyGang("pg", 2, "4", "hard", 1, "")),
			nodes: []string{"n4", "n5"}, binds: 2,
		},
		"hard tier 1: no rack holds the gang, so nothing binds and the PodGroup says why": {
			objs: objects(queues, racks(), busy("n0", "6"), busy("n2", "6"), busy("n3", "6"), busy("n4", "6"), busy("n6", "6"), busy("n7", "6"),
				topologyGang("pg", 3, "3", "hard", 1, "")),
			binds: 0,
			message: "3 of 3 pods wait: hard network topology: within one HyperNode of tier 1 or lower, and its pods fit together in none of " +
				"the 2 HyperNodes of tier 1 or lower with room enough (2 more lack the free resources); the closest, s0 (tier 1), holds 2 of them; " +
				"pod pg-2: in HyperNode s0: 0/2 nodes are available: 2 Insufficient cpu. The pod requests cpu 3.",
		},
		"hard tier 2: when no rack holds the gang, one block does": {
			objs:  objects(queues, racks(), busy("n4", "1"), topologyGang("pg", 6, "4", "hard", 2, "")),
			nodes: []string{"n4", "n5", "n6", "n7"}, binds: 6,
		},
		"hard with a tier name: the tier of the HyperNodes of that name": {
			objs:  objects(queues, racks(), topologyGang("pg", 6, "4", "hard", 0, "block")),
			nodes: []string{"n0", "n1", "n2", "n3"}, binds: 6,
		},
		"hard with a tier name no HyperNode has: nothing binds and the PodGroup names it": {
			objs:  objects(queues, racks(), topologyGang("pg", 2, "1", "hard", 0, "pod")),
			binds: 0,
			message: `2 of 2 pods wait: hard network topology: within one HyperNode of tier 0 or lower, but its networkTopology.highestTierName "pod" ` +
				`is the tierName of no HyperNode: create HyperNodes of that tierName, or name another tier; pod pg-0: the pod waits with its job: ` +
				`hard network topology: within one HyperNode of tier 0 or lower, but its networkTopology.highestTierName "pod" is the tierName of no ` +
				`HyperNode: create HyperNodes of that tierName, or name another tier`,
		},
		"soft: the lowest tier that holds the gang, a block when no rack does": {
			objs: objects(queues, racks(), busy("n0", "5"), busy("n2", "5"), busy("n4", "5"), busy("n6", "5"),
				busy("n1", "1"), busy("n3", "1"), busy("n5", "1"), topologyGang("pg", 3, "4", "soft", 0, "")),
			nodes: []string{"n5", "n7"}, binds: 3,
		},
		"soft: anywhere when no HyperNode holds the gang": {
			objs:  objects(queues, st.MakeNode("a", "2", "4Gi").Obj(), st.MakeNode("b", "2", "4Gi").Obj(), topologyGang("pg", 4, "1", "soft", 0, "")),
			nodes: []string{"a", "b"}, binds: 4,
		},
		"hard tier 1 without HyperNodes: the whole cluster is tier 1": {
			objs:  objects(queues, st.MakeNode("a", "2", "4Gi").Obj(), st.MakeNode("b", "2", "4Gi").Obj(), topologyGang("pg", 4, "1", "hard", 1, "")),
			nodes: []string{"a", "b"}, binds: 4,
		},
		"a job grows only in the rack its running pods are in": {
			objs: objects(queues, racks(), busy("n1", "7"),
				st.MakePodGroup("ns", "pg", 1).Phase(schedulingv1beta1.PodGroupRunning).NetworkTopology("hard", 1, "").Obj(),
				st.MakePod("ns", "pg-0").Group("pg").Req("1", "").Node("n1").Phase(corev1.PodRunning).Obj(),
				st.MakePod("ns", "pg-1").Group("pg").Req("4", "").Obj(),
				st.MakePod("ns", "pg-2").Group("pg").Req("4", "").Obj()),
			nodes: []string{"n0", "n1"}, binds: 2,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			res := run(t, topologyConf, tc.objs)
			if len(res.Binds) != tc.binds {
				t.Errorf("binds = %v, want %d", res.Binds, tc.binds)
			}
			for pod, node := range res.Binds {
				if !slices.Contains(tc.nodes, node) {
					t.Errorf("pod %s bound to %s, want one of %v", pod, node, tc.nodes)
				}
			}
			want := map[api.JobID]string{}
			if tc.message != "" {
				want["ns/pg"] = tc.message
			}
			if diff := cmp.Diff(want, res.Messages); diff != "" {
				t.Errorf("messages (-want +got):\n%s", diff)
			}
		})
	}
}

// With no plugin scoring HyperNodes, a hard gang goes to the first domain by name that holds it,
// not to the fullest one (the network-topology-aware plugin's choice).
func TestAllocateWithinHyperNodesUnscored(t *testing.T) {
	unscored := strings.Replace(topologyConf, "  - name: network-topology-aware\n", "", 1)
	if unscored == topologyConf {
		t.Fatal("topologyConf has no network-topology-aware plugin to leave out")
	}
	queues := []any{st.MakeQueue("default", 1).Obj()}
	// s0 cannot hold the gang; s1 and s3 are empty; s2 is the fullest that holds it.
	objs := objects(queues, racks(), busy("n0", "6"), busy("n1", "6"), busy("n4", "2"), topologyGang("pg", 2, "4", "hard", 1, ""))
	for name, tc := range map[string]struct {
		conf  string
		nodes []string
	}{
		"unscored: the first rack by name": {conf: unscored, nodes: []string{"n2", "n3"}},
		"scored: the fullest rack":         {conf: topologyConf, nodes: []string{"n4", "n5"}},
	} {
		t.Run(name, func(t *testing.T) {
			res := run(t, tc.conf, objs)
			if len(res.Binds) != 2 {
				t.Fatalf("binds = %v, want 2", res.Binds)
			}
			for pod, node := range res.Binds {
				if !slices.Contains(tc.nodes, node) {
					t.Errorf("pod %s bound to %s, want one of %v", pod, node, tc.nodes)
				}
			}
		})
	}
}

// partitioned is a PodGroup of one task "w" of partitions × size pods of cpu each, labelled by
// partition, whose subGroupPolicy asks minimum whole partitions (each within a rack when mode
// is not empty); minMember is minimum × size.
func partitioned(partitions, size, minimum int32, cpu, mode string) []any {
	objs := []any{st.MakePodGroup("ns", "pg", minimum*size).Phase(schedulingv1beta1.PodGroupInqueue).
		SubGroupPolicy("w", size, minimum, mode, 1).Obj()}
	for p := int32(0); p < partitions; p++ {
		for i := int32(0); i < size; i++ {
			objs = append(objs, st.MakePod("ns", fmt.Sprintf("pg-w-%d", p*size+i)).Group("pg").Role("w").
				Label("volcano.sh/task-spec", "w").Label("volcano.sh/partition-id", fmt.Sprint(p)).Req(cpu, "").Obj())
		}
	}
	return objs
}

func TestAllocatePartitions(t *testing.T) {
	queues := []any{st.MakeQueue("default", 1).Obj()}
	rackOf := map[string]string{"n0": "s0", "n1": "s0", "n2": "s1", "n3": "s1", "n4": "s2", "n5": "s2", "n6": "s3", "n7": "s3"}
	t.Run("four partitions of four land in four racks, one each", func(t *testing.T) {
		res := run(t, topologyConf, objects(queues, racks(), partitioned(4, 4, 4, "4", "hard")))
		if len(res.Binds) != 16 {
			t.Fatalf("binds = %v, want 16", res.Binds)
		}
		racksOf := map[string]map[string]bool{}
		for pod, node := range res.Binds {
			var idx int
			fmt.Sscanf(pod, "ns/pg-w-%d", &idx)
			part := fmt.Sprint(idx / 4)
			if racksOf[part] == nil {
				racksOf[part] = map[string]bool{}
			}
			racksOf[part][rackOf[node]] = true
		}
		used := map[string]bool{}
		for part, rs := range racksOf {
			if len(rs) != 1 {
				t.Errorf("partition %s spans racks %v", part, rs)
			}
			for r := range rs {
				used[r] = true
			}
		}
		if len(used) != 4 {
			t.Errorf("racks used = %v, want all four", used)
		}
	})
	t.Run("a partition is placed whole or not at all", func(t *testing.T) {
		res := run(t, topologyConf, objects(queues, st.MakeNode("a", "4", "8Gi").Obj(), st.MakeNode("b", "6", "8Gi").Obj(),
			partitioned(2, 4, 1, "2", "")))
		got := map[int]bool{}
		for pod := range res.Binds {
			var idx int
			fmt.Sscanf(pod, "ns/pg-w-%d", &idx)
			got[idx/4] = true
		}
		if len(res.Binds) != 4 || len(got) != 1 {
			t.Errorf("binds = %v, want the 4 pods of one partition", res.Binds)
		}
	})
	t.Run("two whole partitions needed and one fits: nothing binds, and the PodGroup says why", func(t *testing.T) {
		res := run(t, topologyConf, objects(queues, st.MakeNode("a", "4", "8Gi").Obj(), st.MakeNode("b", "6", "8Gi").Obj(),
			partitioned(2, 4, 2, "2", "")))
		if len(res.Binds) != 0 {
			t.Errorf("binds = %v, want none", res.Binds)
		}
		want := "8 of 8 pods wait: pod pg-w-5 (and 1 more): 0/2 nodes are available: 2 Insufficient cpu. The pod requests cpu 2."
		if diff := cmp.Diff(map[api.JobID]string{"ns/pg": want}, res.Messages); diff != "" {
			t.Errorf("messages (-want +got):\n%s", diff)
		}
	})
	t.Run("partitions within racks need a rack each: with three racks full, one of two fits, nothing binds and the PodGroup says why", func(t *testing.T) {
		res := run(t, topologyConf, objects(queues, racks(), busy("n0", "8"), busy("n1", "8"), busy("n2", "8"), busy("n3", "8"),
			busy("n4", "8"), busy("n5", "8"), partitioned(2, 4, 2, "4", "hard")))
		if len(res.Binds) != 0 {
			t.Errorf("binds = %v, want none", res.Binds)
		}
		want := "8 of 8 pods wait: pod pg-w-4: hard network topology: within one HyperNode of tier 1 or lower, and none of the 4 HyperNodes " +
			"of tier 1 or lower has the free resources the pods of subgroup w/1 need together (cpu 16)"
		if diff := cmp.Diff(map[api.JobID]string{"ns/pg": want}, res.Messages); diff != "" {
			t.Errorf("messages (-want +got):\n%s", diff)
		}
	})
}
