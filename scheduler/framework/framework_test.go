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

package framework_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/conf"
	"github.com/caldera-sh/caldera/scheduler/framework"
	st "github.com/caldera-sh/caldera/scheduler/internal/testing"
)

// fake is a plugin whose callbacks the test sets.
type fake struct {
	name string
	open func(ssn *framework.Session)
}

func (f *fake) Name() string                         { return f.name }
func (f *fake) OnSessionOpen(ssn *framework.Session) { f.open(ssn) }
func (f *fake) OnSessionClose(*framework.Session)    {}

// registry returns a registry of fake plugins a, b, c, d.
func registry(opens map[string]func(*framework.Session)) framework.Registry {
	r := framework.Registry{Plugins: map[string]framework.PluginBuilder{}, Actions: map[string]framework.Action{}}
	for _, n := range []string{"a", "b", "c", "d"} {
		name, open := n, opens[n]
		if open == nil {
			open = func(*framework.Session) {}
		}
		r.Plugins[name] = func(conf.Arguments) (framework.Plugin, error) { return &fake{name: name, open: open}, nil }
	}
	r.Actions["allocate"] = nopAction{}
	return r
}

type nopAction struct{}

func (nopAction) Name() string               { return "allocate" }
func (nopAction) Execute(*framework.Session) {}

const twoTiers = "actions: allocate\ntiers:\n- plugins:\n  - name: a\n  - name: b\n- plugins:\n  - name: c\n  - name: d\n"

func vote(v int) framework.JobVoteFn { return func(*api.JobInfo) int { return v } }

func TestVotes(t *testing.T) {
	cases := map[string]struct {
		votes map[string]int
		want  bool
	}{
		"nobody votes":                             {want: true},
		"a rejection stops the job":                {votes: map[string]int{"a": framework.Permit, "b": framework.Reject}, want: false},
		"a later tier's rejection does not count":  {votes: map[string]int{"a": framework.Permit, "c": framework.Reject}, want: true},
		"a first tier abstaining passes the turn":  {votes: map[string]int{"a": framework.Abstain, "c": framework.Reject}, want: false},
		"a forced permit overrides any rejection":  {votes: map[string]int{"a": framework.Reject, "d": framework.ForcePermit}, want: true},
		"permit in the second tier after abstains": {votes: map[string]int{"b": framework.Abstain, "d": framework.Permit}, want: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			opens := map[string]func(*framework.Session){}
			for p, v := range tc.votes {
				p, v := p, v
				opens[p] = func(ssn *framework.Session) {
					ssn.AddJobPipelinedFn(p, vote(v))
					ssn.AddJobEnqueueableFn(p, vote(v))
				}
			}
			ssn, _ := st.Session(t, st.NewSnapshot(t), registry(opens), twoTiers, st.Epoch)
			j := api.NewJobInfo("ns/j")
			got := []bool{ssn.JobPipelined(j), ssn.JobEnqueueable(j)}
			if diff := cmp.Diff([]bool{tc.want, tc.want}, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOrderAndChecks(t *testing.T) {
	opens := map[string]func(*framework.Session){
		"a": func(ssn *framework.Session) {
			ssn.AddJobOrderFn("a", func(l, r *api.JobInfo) int { return 0 })
			ssn.AddJobReadyFn("a", func(*api.JobInfo) bool { return true })
			ssn.AddJobStarvingFn("a", func(*api.JobInfo) bool { return false })
		},
		"b": func(ssn *framework.Session) {
			// Higher priority first.
			ssn.AddJobOrderFn("b", func(l, r *api.JobInfo) int { return int(r.Priority - l.Priority) })
			ssn.AddJobReadyFn("b", func(j *api.JobInfo) bool { return j.Priority > 0 })
		},
		"c": func(ssn *framework.Session) {
			ssn.AddJobOrderFn("c", func(l, r *api.JobInfo) int { return -1 })
			ssn.AddJobStarvingFn("c", func(*api.JobInfo) bool { return true })
			ssn.AddOverusedFn("c", func(q *api.QueueInfo) bool { return q.Name == "full" })
		},
	}
	ssn, _ := st.Session(t, st.NewSnapshot(t), registry(opens), twoTiers, st.Epoch)
	old := &api.JobInfo{UID: "ns/old", CreationTime: st.Epoch}
	young := &api.JobInfo{UID: "ns/young", CreationTime: st.Epoch.Add(time.Minute), Priority: 5}
	type result struct {
		YoungFirst, OldFirst, ReadyOld, ReadyYoung, Starving, FullOverused, EmptyOverused bool
	}
	got := result{
		YoungFirst: ssn.JobOrderFn(young, old), OldFirst: ssn.JobOrderFn(old, young),
		ReadyOld: ssn.JobReady(old), ReadyYoung: ssn.JobReady(young),
		// The first tier with a starving check decides.
		Starving:     ssn.JobStarving(old),
		FullOverused: ssn.Overused(&api.QueueInfo{Name: "full"}), EmptyOverused: ssn.Overused(&api.QueueInfo{Name: "empty"}),
	}
	want := result{YoungFirst: true, ReadyYoung: true, FullOverused: true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

func TestVictimsIntersectWithinTheFirstTierWithAnOpinion(t *testing.T) {
	keep := func(names ...string) framework.VictimsFn {
		return func(_ *api.TaskInfo, cs []*api.TaskInfo) ([]*api.TaskInfo, bool) {
			var out []*api.TaskInfo
			for _, c := range cs {
				for _, n := range names {
					if c.Name == n {
						out = append(out, c)
					}
				}
			}
			return out, false
		}
	}
	abstain := func(*api.TaskInfo, []*api.TaskInfo) ([]*api.TaskInfo, bool) { return nil, true }
	cases := map[string]struct {
		fns  map[string]framework.VictimsFn
		want []string
	}{
		"no plugin: no victim":                   {},
		"one plugin":                             {fns: map[string]framework.VictimsFn{"a": keep("x", "y")}, want: []string{"x", "y"}},
		"a tier intersects":                      {fns: map[string]framework.VictimsFn{"a": keep("x", "y"), "b": keep("y", "z")}, want: []string{"y"}},
		"the first tier with an opinion decides": {fns: map[string]framework.VictimsFn{"a": abstain, "c": keep("z")}, want: []string{"z"}},
		"an empty first-tier answer is final":    {fns: map[string]framework.VictimsFn{"a": keep(), "c": keep("z")}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			opens := map[string]func(*framework.Session){}
			for p, fn := range tc.fns {
				p, fn := p, fn
				opens[p] = func(ssn *framework.Session) { ssn.AddPreemptableFn(p, fn) }
			}
			ssn, _ := st.Session(t, st.NewSnapshot(t), registry(opens), twoTiers, st.Epoch)
			var got []string
			for _, v := range ssn.Preemptable(&api.TaskInfo{}, []*api.TaskInfo{{UID: "1", Name: "x"}, {UID: "2", Name: "y"}, {UID: "3", Name: "z"}}) {
				got = append(got, v.Name)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStatementCommitAndDiscard(t *testing.T) {
	objs := []any{st.MakeNode("n1", "4", "8Gi").Obj(), st.MakeQueue("default", 1).Obj(),
		st.MakePodGroup("ns", "pg", 2).Phase(schedulingv1beta1.PodGroupInqueue).Obj(),
		st.MakePod("ns", "a").Group("pg").Req("1", "").Obj(), st.MakePod("ns", "b").Group("pg").Req("1", "").Obj(),
		st.MakePodGroup("ns", "old", 1).Phase(schedulingv1beta1.PodGroupRunning).Obj(),
		st.MakePod("ns", "victim").Group("old").Req("2", "").Node("n1").Obj()}
	s := st.NewSnapshot(t, objs...)
	ssn, rec := st.Session(t, s, registry(nil), twoTiers, st.Epoch)
	j := ssn.Jobs["ns/pg"]
	var a, b *api.TaskInfo
	for _, task := range j.Tasks {
		if task.Name == "a" {
			a = task
		} else {
			b = task
		}
	}
	victim := ssn.Jobs["ns/old"].Tasks["pod/ns/victim"]
	node := ssn.Nodes["n1"]

	stmt := ssn.NewStatement()
	for _, err := range []error{stmt.Allocate(a, "n1"), stmt.Evict(victim, "make room"), stmt.Pipeline(b, "n1")} {
		if err != nil {
			t.Fatal(err)
		}
	}
	during := fmt.Sprintf("used %s; releasing %s; pipelined %s; ready %d waiting %d", node.Used.String(), node.Releasing.String(), node.Pipelined.String(), j.ReadyTaskNum(), j.WaitingTaskNum())
	if diff := cmp.Diff("used cpu 3; releasing cpu 2; pipelined cpu 1; ready 1 waiting 1", during); diff != "" {
		t.Errorf("during the statement (-want +got):\n%s", diff)
	}
	stmt.Discard()
	after := fmt.Sprintf("used %s; releasing %s; pipelined %s; ready %d waiting %d; victim %s", node.Used.String(), node.Releasing.String(), node.Pipelined.String(), j.ReadyTaskNum(), j.WaitingTaskNum(), victim.Status)
	if diff := cmp.Diff("used cpu 2; releasing nothing; pipelined nothing; ready 0 waiting 0; victim Running", after); diff != "" {
		t.Errorf("after discard (-want +got):\n%s", diff)
	}

	stmt = ssn.NewStatement()
	if err := stmt.Allocate(a, "n1"); err != nil {
		t.Fatal(err)
	}
	if err := stmt.Evict(victim, "make room"); err != nil {
		t.Fatal(err)
	}
	if err := stmt.Pipeline(b, "n1"); err != nil {
		t.Fatal(err)
	}
	stmt.Commit()
	got := fmt.Sprintf("binds %v evictions %v nominations %v committed %v", rec.Binds, rec.Evictions, rec.Nominations, ssn.Committed(a.UID))
	if diff := cmp.Diff("binds map[ns/a:n1] evictions [ns/victim] nominations map[ns/b:n1] committed true", got); diff != "" {
		t.Errorf("after commit (-want +got):\n%s", diff)
	}
	if err := stmt.Allocate(a, "n1"); err == nil {
		t.Error("allocating a task that is no longer pending succeeded")
	}
}

// volumeLog is a volume binder that records what it is asked, and refuses to reserve on node
// "full".
type volumeLog struct{ calls []string }

func (v *volumeLog) PreFilter(*corev1.Pod) error { return nil }
func (v *volumeLog) Filter(*corev1.Pod, *api.NodeInfo, framework.VolumeChecks) string {
	return ""
}
func (v *volumeLog) Reserve(pod *corev1.Pod, node *corev1.Node) error {
	if node.Name == "full" {
		return fmt.Errorf("no volume on %s", node.Name)
	}
	v.calls = append(v.calls, "reserve "+pod.Name+" on "+node.Name)
	return nil
}
func (v *volumeLog) Unreserve(uid types.UID) { v.calls = append(v.calls, "unreserve "+string(uid)) }
func (v *volumeLog) Commit(uid types.UID)    { v.calls = append(v.calls, "commit "+string(uid)) }
func (v *volumeLog) CloseSession()           { v.calls = append(v.calls, "close") }

func TestStatementReservesVolumes(t *testing.T) {
	withClaim := func(name string) *corev1.Pod {
		p := st.MakePod("ns", name).Group("pg").Req("1", "").Obj()
		p.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: name + "-data"}}}}
		return p
	}
	objs := []any{st.MakeNode("n1", "4", "8Gi").Obj(), st.MakeNode("full", "4", "8Gi").Obj(), st.MakeQueue("default", 1).Obj(),
		st.MakePodGroup("ns", "pg", 3).Phase(schedulingv1beta1.PodGroupInqueue).Obj(),
		withClaim("a"), withClaim("b"), st.MakePod("ns", "plain").Group("pg").Req("1", "").Obj()}
	cfg, err := framework.Load([]byte(twoTiers), registry(nil))
	if err != nil {
		t.Fatal(err)
	}
	vols := &volumeLog{}
	ssn := framework.OpenSession(st.NewSnapshot(t, objs...), cfg, st.NewRecorder(), "cycle-1", st.Epoch, logr.Discard(), framework.WithVolumes(vols))
	tasks := map[string]*api.TaskInfo{}
	for _, task := range ssn.Jobs["ns/pg"].Tasks {
		tasks[task.Name] = task
	}

	// Pods without claims are not the binder's business; pipelined pods reserve nothing yet; a
	// refused reservation places nothing.
	stmt := ssn.NewStatement()
	if err := stmt.Allocate(tasks["a"], "full"); err == nil {
		t.Error("a task whose volumes could not be reserved was allocated")
	}
	for _, err := range []error{stmt.Allocate(tasks["a"], "n1"), stmt.Allocate(tasks["plain"], "n1"), stmt.Pipeline(tasks["b"], "n1")} {
		if err != nil {
			t.Fatal(err)
		}
	}
	stmt.Discard()
	stmt = ssn.NewStatement()
	for _, err := range []error{stmt.Allocate(tasks["a"], "n1"), stmt.Allocate(tasks["b"], "n1")} {
		if err != nil {
			t.Fatal(err)
		}
	}
	stmt.Commit()
	ssn.Close()
	want := []string{
		"reserve a on n1", "unreserve " + string(tasks["a"].UID),
		"reserve a on n1", "reserve b on n1", "commit " + string(tasks["a"].UID), "commit " + string(tasks["b"].UID),
		"close",
	}
	if diff := cmp.Diff(strings.Join(want, "\n"), strings.Join(vols.calls, "\n")); diff != "" {
		t.Errorf("calls to the volume binder (-want +got):\n%s", diff)
	}
}

func TestFeasibleNodesToFind(t *testing.T) {
	got := []int{framework.FeasibleNodesToFind(50), framework.FeasibleNodesToFind(100), framework.FeasibleNodesToFind(1000),
		framework.FeasibleNodesToFind(5000), framework.FeasibleNodesToFind(100000)}
	if diff := cmp.Diff([]int{50, 100, 420, 500, 5000}, got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

// TestRankingMatchesSearch checks that tasks placed through a shared node ranking land where a
// fresh search over every node would put them, as nodes fill up.
func TestRankingMatchesSearch(t *testing.T) {
	objs := []any{st.MakeQueue("default", 1).Obj(), st.MakePodGroup("ns", "pg", 1).Phase(schedulingv1beta1.PodGroupInqueue).Obj()}
	for i := 0; i < 6; i++ {
		objs = append(objs, st.MakeNode(fmt.Sprintf("n%d", i), fmt.Sprint(2+i%3), "16Gi").Obj())
	}
	for i := 0; i < 14; i++ {
		objs = append(objs, st.MakePod("ns", fmt.Sprintf("p%02d", i)).Group("pg").Req("1", "1Gi").Obj())
	}
	config := "actions: allocate\ntiers:\n- plugins:\n  - name: a\n"
	leastUsed := func(ssn *framework.Session) {
		ssn.AddNodeOrderFn("a", func(t *api.TaskInfo, n *api.NodeInfo) float64 {
			return float64(n.Allocatable.MilliCPU - n.Used.MilliCPU)
		})
	}
	ssn, _ := st.Session(t, st.NewSnapshot(t, objs...), registry(map[string]func(*framework.Session){"a": leastUsed}), config, st.Epoch)
	tasks := ssn.PendingTasks(ssn.Jobs["ns/pg"], false)
	stmt := ssn.NewStatement()
	for i, task := range tasks {
		p, fe := ssn.SelectNode(task, nil)
		// The best node by the same score, searching every node.
		var best *api.NodeInfo
		for _, n := range ssn.NodeList {
			if reasons, _ := ssn.FitOnNode(task, n); len(reasons) == 0 && (best == nil || ssn.NodeScore(task, n) > ssn.NodeScore(task, best)) {
				best = n
			}
		}
		if best == nil {
			if p != nil {
				t.Fatalf("task %d placed on %s where nothing fits", i, p.Node.Name)
			}
			if diff := cmp.Diff("0/6 nodes are available: 6 Insufficient cpu.", fe.Error()); diff != "" {
				t.Errorf("fit errors (-want +got):\n%s", diff)
			}
			continue
		}
		if p == nil || ssn.NodeScore(task, p.Node) != ssn.NodeScore(task, best) {
			t.Fatalf("task %d: placed on %v, a best node is %s", i, p, best.Name)
		}
		if err := stmt.Allocate(task, p.Node.Name); err != nil {
			t.Fatal(err)
		}
	}
}
