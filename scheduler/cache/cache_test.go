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

package cache_test

import (
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	toolscache "k8s.io/client-go/tools/cache"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/cache"
	st "github.com/caldera-sh/caldera/scheduler/internal/testing"
	"github.com/caldera-sh/caldera/scheduler/snapshot"
)

// view is a compact, comparable picture of a snapshot.
type view struct {
	Jobs    map[api.JobID]jobView
	Nodes   map[string]nodeView
	Pending []api.JobID
	Usage   map[string]usageView
}

type jobView struct {
	Queue        string
	Phase        schedulingv1beta1.PodGroupPhase
	MinAvailable int32
	Priority     int32
	PodOnly      bool
	HasPodGroup  bool
	Tasks        map[string]string // name -> status@node
	Allocated    string
}

type nodeView struct {
	Used, Releasing string
	Pods            int32
	Ready           bool
}

type usageView struct {
	Allocated, Request, Inqueue string
	Phases                      map[schedulingv1beta1.PodGroupPhase]int32
	Jobs                        int32
}

func viewOf(s *snapshot.Snapshot) view {
	v := view{Jobs: map[api.JobID]jobView{}, Nodes: map[string]nodeView{}, Usage: map[string]usageView{}}
	for id, j := range s.Jobs {
		jv := jobView{Queue: j.Queue, Phase: j.Phase, MinAvailable: j.MinAvailable, Priority: j.Priority, PodOnly: j.PodOnly,
			HasPodGroup: j.PodGroup != nil, Tasks: map[string]string{}, Allocated: j.Allocated.String()}
		for _, t := range j.Tasks {
			jv.Tasks[t.Name] = t.Status.String() + "@" + t.NodeName
		}
		v.Jobs[id] = jv
	}
	for name, n := range s.Nodes {
		v.Nodes[name] = nodeView{Used: n.Used.String(), Releasing: n.Releasing.String(), Pods: n.PodCount, Ready: n.Ready}
	}
	for id := range s.Pending {
		v.Pending = append(v.Pending, id)
	}
	sort.Slice(v.Pending, func(i, j int) bool { return v.Pending[i] < v.Pending[j] })
	for q, u := range s.Usage {
		v.Usage[q] = usageView{Allocated: u.Allocated.String(), Request: u.Request.String(), Inqueue: u.Inqueue.String(), Phases: u.Phases, Jobs: u.Jobs}
	}
	return v
}

func TestCacheBuildsJobsNodesAndUsage(t *testing.T) {
	cases := map[string]struct {
		objs []any
		want view
	}{
		"gang with one bound and one pending pod": {
			objs: []any{
				st.MakeNode("n1", "4", "8Gi").Obj(),
				st.MakePodGroup("ns", "pg", 2).Phase(schedulingv1beta1.PodGroupInqueue).MinResources("2", "2Gi").Obj(),
				st.MakePod("ns", "p1").Group("pg").Req("1", "1Gi").Node("n1").Obj(),
				st.MakePod("ns", "p2").Group("pg").Req("1", "1Gi").Obj(),
			},
			want: view{
				Jobs: map[api.JobID]jobView{"ns/pg": {Queue: "default", Phase: "Inqueue", MinAvailable: 2, HasPodGroup: true,
					Tasks: map[string]string{"p1": "Running@n1", "p2": "Pending@"}, Allocated: "cpu 1, memory 1Gi"}},
				Nodes:   map[string]nodeView{"n1": {Used: "cpu 1, memory 1Gi", Releasing: "nothing", Pods: 1, Ready: true}},
				Pending: []api.JobID{"ns/pg"},
				Usage: map[string]usageView{"default": {Allocated: "cpu 1, memory 1Gi", Request: "cpu 2, memory 2Gi", Inqueue: "cpu 1, memory 1Gi",
					Phases: map[schedulingv1beta1.PodGroupPhase]int32{"Inqueue": 1}, Jobs: 1}},
			},
		},
		"lone pod is a gang of one in the queue it names": {
			objs: []any{
				st.MakePod("ns", "solo").Req("500m", "").Annotation(schedulingv1beta1.QueueNameAnnotationKey, "q1").Priority("high", 100).Obj(),
			},
			want: view{
				Jobs: map[api.JobID]jobView{"ns/#pod/solo": {Queue: "q1", Phase: "Pending", MinAvailable: 1, Priority: 100, PodOnly: true,
					Tasks: map[string]string{"solo": "Pending@"}, Allocated: "nothing"}},
				Nodes:   map[string]nodeView{},
				Pending: []api.JobID{"ns/#pod/solo"},
				Usage:   map[string]usageView{"q1": {Allocated: "nothing", Request: "cpu 500m", Inqueue: "nothing", Phases: map[schedulingv1beta1.PodGroupPhase]int32{}, Jobs: 1}},
			},
		},
		"pods of other schedulers count on their node only; their pending pods are ignored": {
			objs: []any{
				st.MakeNode("n1", "4", "8Gi").Obj(),
				st.MakePod("ns", "other").Scheduler("default-scheduler").Req("3", "").Node("n1").Obj(),
				st.MakePod("ns", "other-pending").Scheduler("default-scheduler").Req("3", "").Obj(),
			},
			want: view{
				Jobs:  map[api.JobID]jobView{},
				Nodes: map[string]nodeView{"n1": {Used: "cpu 3", Releasing: "nothing", Pods: 1, Ready: true}},
				Usage: map[string]usageView{},
			},
		},
		"pods waiting for their PodGroup are not schedulable; finished and deleting pods": {
			objs: []any{
				st.MakeNode("n1", "4", "8Gi").Obj(),
				st.MakePod("ns", "early").Group("later").Req("1", "").Obj(),
				st.MakePodGroup("ns", "pg", 1).Phase(schedulingv1beta1.PodGroupRunning).Obj(),
				st.MakePod("ns", "done").Group("pg").Req("1", "").Node("n1").Phase(corev1.PodSucceeded).Obj(),
				st.MakePod("ns", "going").Group("pg").Req("2", "").Node("n1").Deleting().Obj(),
			},
			want: view{
				Jobs: map[api.JobID]jobView{
					"ns/later": {Tasks: map[string]string{"early": "Pending@"}, Allocated: "nothing"},
					"ns/pg": {Queue: "default", Phase: "Running", MinAvailable: 1, HasPodGroup: true,
						Tasks: map[string]string{"done": "Succeeded@n1", "going": "Releasing@n1"}, Allocated: "nothing"},
				},
				Nodes: map[string]nodeView{"n1": {Used: "cpu 2", Releasing: "cpu 2", Pods: 1, Ready: true}},
				Usage: map[string]usageView{
					"default": {Allocated: "nothing", Request: "nothing", Inqueue: "nothing", Phases: map[schedulingv1beta1.PodGroupPhase]int32{"Running": 1}, Jobs: 1},
				},
			},
		},
		"job priority comes from the PodGroup's PriorityClass, else the global default": {
			objs: []any{
				st.MakePriorityClass("high", 1000),
				func() any { pc := st.MakePriorityClass("dflt", 7); pc.GlobalDefault = true; return pc }(),
				st.MakePodGroup("ns", "a", 1).PriorityClass("high").Obj(),
				st.MakePodGroup("ns", "b", 1).Obj(),
			},
			want: view{
				Jobs: map[api.JobID]jobView{
					"ns/a": {Queue: "default", Phase: "Pending", MinAvailable: 1, Priority: 1000, HasPodGroup: true, Tasks: map[string]string{}, Allocated: "nothing"},
					"ns/b": {Queue: "default", Phase: "Pending", MinAvailable: 1, Priority: 7, HasPodGroup: true, Tasks: map[string]string{}, Allocated: "nothing"},
				},
				Nodes:   map[string]nodeView{},
				Pending: []api.JobID{"ns/a", "ns/b"},
				Usage: map[string]usageView{"default": {Allocated: "nothing", Request: "nothing", Inqueue: "nothing",
					Phases: map[schedulingv1beta1.PodGroupPhase]int32{"Pending": 2}, Jobs: 2}},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := viewOf(st.NewSnapshot(t, tc.objs...))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("snapshot mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAssumeConfirmForget(t *testing.T) {
	node := st.MakeNode("n1", "4", "8Gi").Obj()
	pg := st.MakePodGroup("ns", "pg", 2).Phase(schedulingv1beta1.PodGroupInqueue).Obj()
	p1 := st.MakePod("ns", "p1").Group("pg").Req("1", "").Obj()
	p2 := st.MakePod("ns", "p2").Group("pg").Req("1", "").Obj()
	c := st.NewCache(t, node, pg, p1, p2)
	s := snapshot.New()
	c.UpdateSnapshot(s)

	tasks := []*api.TaskInfo{s.Jobs["ns/pg"].Tasks[p1.UID].Clone(), s.Jobs["ns/pg"].Tasks[p2.UID].Clone()}
	for _, task := range tasks {
		task.NodeName = "n1"
	}
	if got := len(c.Assume(tasks)); got != 2 {
		t.Fatalf("Assume() accepted %d tasks, want 2", got)
	}
	c.UpdateSnapshot(s)
	want := map[string]string{"p1": "Binding@n1", "p2": "Binding@n1"}
	if diff := cmp.Diff(want, viewOf(s).Jobs["ns/pg"].Tasks); diff != "" {
		t.Fatalf("after Assume (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(nodeView{Used: "cpu 2", Releasing: "nothing", Pods: 2, Ready: true}, viewOf(s).Nodes["n1"]); diff != "" {
		t.Fatalf("node after Assume (-want +got):\n%s", diff)
	}
	// A second Assume of a task no longer pending is refused.
	if got := len(c.Assume(tasks[:1])); got != 0 {
		t.Fatalf("second Assume() accepted %d tasks, want 0", got)
	}

	// An unrelated update of p1 before the bind lands keeps it binding; the bind of p1 lands; p2's bind fails.
	labelled := p1.DeepCopy()
	labelled.Labels = map[string]string{"x": "y"}
	c.AddPod(labelled)
	c.UpdateSnapshot(s)
	if got := viewOf(s).Jobs["ns/pg"].Tasks["p1"]; got != "Binding@n1" {
		t.Fatalf("p1 after an unrelated update = %s, want Binding@n1", got)
	}
	bound := p1.DeepCopy()
	bound.Spec.NodeName = "n1"
	c.AddPod(bound)
	c.ForgetBind(p2.UID)
	c.UpdateSnapshot(s)
	want = map[string]string{"p1": "Bound@n1", "p2": "Pending@"}
	if diff := cmp.Diff(want, viewOf(s).Jobs["ns/pg"].Tasks); diff != "" {
		t.Fatalf("after confirm and forget (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(nodeView{Used: "cpu 1", Releasing: "nothing", Pods: 1, Ready: true}, viewOf(s).Nodes["n1"]); diff != "" {
		t.Fatalf("node after confirm and forget (-want +got):\n%s", diff)
	}
	if got := c.BindsInFlight(); got != 0 {
		t.Fatalf("BindsInFlight() = %d, want 0", got)
	}
}

func TestEvictingHoldsNodeAsReleasing(t *testing.T) {
	running := st.MakePod("ns", "victim").Group("pg").Req("2", "").Node("n1").Obj()
	c := st.NewCache(t, st.MakeNode("n1", "4", "8Gi").Obj(), st.MakePodGroup("ns", "pg", 1).Obj(), running)
	s := snapshot.New()
	c.MarkEvicting(running.UID)
	c.AddPod(running.DeepCopy()) // a status update before the delete lands keeps it releasing
	c.UpdateSnapshot(s)
	if diff := cmp.Diff(nodeView{Used: "cpu 2", Releasing: "cpu 2", Pods: 1, Ready: true}, viewOf(s).Nodes["n1"]); diff != "" {
		t.Fatalf("node while evicting (-want +got):\n%s", diff)
	}
	c.ForgetEvicting(running.UID)
	c.UpdateSnapshot(s)
	if got := viewOf(s).Jobs["ns/pg"].Tasks["victim"]; got != "Running@n1" {
		t.Fatalf("victim after a failed eviction = %s, want Running@n1", got)
	}
	c.DeletePod(running.UID)
	c.UpdateSnapshot(s)
	if diff := cmp.Diff(nodeView{Used: "nothing", Releasing: "nothing", Pods: 0, Ready: true}, viewOf(s).Nodes["n1"]); diff != "" {
		t.Fatalf("node after delete (-want +got):\n%s", diff)
	}
}

func TestSnapshotCopiesOnlyWhatChanged(t *testing.T) {
	var objs []any
	for i := 0; i < 50; i++ {
		objs = append(objs, st.MakeNode("n"+itoa(i), "4", "8Gi").Obj())
		objs = append(objs, st.MakePodGroup("ns", "pg"+itoa(i), 1).Phase(schedulingv1beta1.PodGroupRunning).Obj())
		objs = append(objs, st.MakePod("ns", "p"+itoa(i)).Group("pg"+itoa(i)).Req("1", "").Node("n"+itoa(i)).Obj())
	}
	c := st.NewCache(t, objs...)
	s := snapshot.New()
	c.UpdateSnapshot(s)
	before := map[api.JobID]*api.JobInfo{}
	for id, j := range s.Jobs {
		before[id] = j
	}
	nodesBefore := map[string]*api.NodeInfo{}
	for n, ni := range s.Nodes {
		nodesBefore[n] = ni
	}

	// A heartbeat changes nothing the scheduler reads; a new pending pod changes one job.
	hb := st.MakeNode("n3", "4", "8Gi").Obj()
	hb.Status.Conditions[0].Message = "heartbeat"
	c.AddNode(hb)
	newPod := st.MakePod("ns", "extra").Group("pg7").Req("1", "").Obj()
	c.AddPod(newPod)
	c.UpdateSnapshot(s)

	var changedJobs []api.JobID
	for id, j := range s.Jobs {
		if before[id] != j {
			changedJobs = append(changedJobs, id)
		}
	}
	var changedNodes []string
	for n, ni := range s.Nodes {
		if nodesBefore[n] != ni {
			changedNodes = append(changedNodes, n)
		}
	}
	if diff := cmp.Diff([]api.JobID{"ns/pg7"}, changedJobs); diff != "" {
		t.Errorf("jobs copied (-want +got):\n%s", diff)
	}
	if len(changedNodes) != 0 {
		t.Errorf("nodes copied = %v, want none", changedNodes)
	}
	if diff := cmp.Diff([]api.JobID{"ns/pg7"}, viewOf(s).Pending); diff != "" {
		t.Errorf("pending (-want +got):\n%s", diff)
	}

	// A job the cycle touched is replaced by a fresh copy next time, undoing tentative changes.
	j := s.Jobs["ns/pg7"]
	j.UpdateTaskStatus(j.OwnTask(newPod.UID), api.Allocated)
	s.TouchJob("ns/pg7")
	c.UpdateSnapshot(s)
	if got := s.Jobs["ns/pg7"].Tasks[newPod.UID].Status; got != api.Pending {
		t.Errorf("touched task after update = %v, want Pending", got)
	}
	if diff := cmp.Diff("cpu 50", s.Usage["default"].Allocated.String()); diff != "" {
		t.Errorf("queue allocated (-want +got):\n%s", diff)
	}
}

func TestAssumedPhaseHoldsUntilSeen(t *testing.T) {
	pg := st.MakePodGroup("ns", "pg", 1).Obj()
	c := st.NewCache(t, pg)
	s := snapshot.New()
	c.SetJobPhase("ns/pg", cache.DecidedPhase{PodGroupUID: pg.UID, Phase: schedulingv1beta1.PodGroupInqueue})
	// An update that does not show the new phase yet keeps the decided one.
	c.AddPodGroup(pg.DeepCopy())
	c.UpdateSnapshot(s)
	if got := s.Jobs["ns/pg"].Phase; got != schedulingv1beta1.PodGroupInqueue {
		t.Fatalf("phase = %s, want Inqueue", got)
	}
	// Once seen, the PodGroup's own phase rules again.
	seen := pg.DeepCopy()
	seen.Status.Phase = schedulingv1beta1.PodGroupInqueue
	c.AddPodGroup(seen)
	back := pg.DeepCopy()
	back.Status.Phase = schedulingv1beta1.PodGroupPending
	c.AddPodGroup(back)
	c.UpdateSnapshot(s)
	if got := s.Jobs["ns/pg"].Phase; got != schedulingv1beta1.PodGroupPending {
		t.Fatalf("phase = %s, want Pending", got)
	}
}

// A phase decided for a PodGroup that has since been made anew under its name (a restarted job's)
// is not taken for the new one, which starts Pending.
func TestDecidedPhaseOfAPodGroupMadeAnewIsDropped(t *testing.T) {
	old := st.MakePodGroup("ns", "pg", 1).Obj()
	c := st.NewCache(t, old)
	c.DeletePodGroup("ns", "pg")
	renewed := st.MakePodGroup("ns", "pg", 1).Obj()
	renewed.UID = "pg-renewed"
	c.AddPodGroup(renewed)
	// The cycle that ran meanwhile decided the old one's phase.
	c.SetJobPhase("ns/pg", cache.DecidedPhase{PodGroupUID: old.UID, Phase: schedulingv1beta1.PodGroupInqueue})
	s := snapshot.New()
	c.UpdateSnapshot(s)
	if got := s.Jobs["ns/pg"].Phase; got != schedulingv1beta1.PodGroupPending {
		t.Fatalf("phase = %s, want Pending", got)
	}
}

func TestNotify(t *testing.T) {
	c := cache.New([]string{"volcano"}, "default")
	node := st.MakeNode("n1", "4", "8Gi").Obj()
	c.AddNode(node)
	drain := func() bool {
		select {
		case <-c.Notify():
			return true
		default:
			return false
		}
	}
	if !drain() {
		t.Fatal("a new node did not notify")
	}
	hb := node.DeepCopy()
	hb.Status.Conditions[0].Reason = "still ready"
	c.AddNode(hb)
	if drain() {
		t.Fatal("a heartbeat notified")
	}
	pg := st.MakePodGroup("ns", "pg", 1).Obj()
	c.AddPodGroup(pg)
	drain()
	statusOnly := pg.DeepCopy()
	statusOnly.Status.Phase = schedulingv1beta1.PodGroupInqueue
	c.AddPodGroup(statusOnly)
	if drain() {
		t.Fatal("a status-only PodGroup update notified")
	}
	c.AddPod(st.MakePod("ns", "p").Group("pg").Obj())
	if !drain() {
		t.Fatal("a pending pod did not notify")
	}
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}

func TestRefusedBindHoldsUntilThePodChanges(t *testing.T) {
	node := st.MakeNode("n1", "4", "8Gi").Obj()
	pg := st.MakePodGroup("ns", "pg", 1).Phase(schedulingv1beta1.PodGroupInqueue).Obj()
	p1 := st.MakePod("ns", "p1").Group("pg").Req("1", "").Obj()
	p1.ResourceVersion = "7"
	c := st.NewCache(t, node, pg, p1)
	s := snapshot.New()
	c.UpdateSnapshot(s)
	task := s.Jobs["ns/pg"].Tasks[p1.UID].Clone()
	task.NodeName = "n1"
	c.Assume([]*api.TaskInfo{task})

	// Refused for version 7: the task is held (the job with it) and off the node.
	c.RefuseBind(p1.UID, "7")
	c.UpdateSnapshot(s)
	got := viewOf(s)
	if diff := cmp.Diff(map[string]string{"p1": "Gated@"}, got.Jobs["ns/pg"].Tasks); diff != "" {
		t.Fatalf("after the refused bind (-want +got):\n%s", diff)
	}
	if !s.Jobs["ns/pg"].HeldByGates() {
		t.Fatalf("the job is not held after the refused bind")
	}
	if got.Nodes["n1"].Pods != 0 {
		t.Fatalf("node n1 holds %d pods after the refused bind, want 0", got.Nodes["n1"].Pods)
	}
	// The same version again (a resync) keeps it held.
	c.AddPod(p1.DeepCopy())
	c.UpdateSnapshot(s)
	if got := viewOf(s).Jobs["ns/pg"].Tasks["p1"]; got != "Gated@" {
		t.Fatalf("p1 after a resync = %s, want Gated@", got)
	}
	// A new version may be placed again.
	changed := p1.DeepCopy()
	changed.ResourceVersion = "8"
	c.AddPod(changed)
	c.UpdateSnapshot(s)
	if got := viewOf(s).Jobs["ns/pg"].Tasks["p1"]; got != "Pending@" {
		t.Fatalf("p1 after it changed = %s, want Pending@", got)
	}

	// A refusal decided on an older version than the cache holds does not hold the pod.
	task = s.Jobs["ns/pg"].Tasks[p1.UID].Clone()
	task.NodeName = "n1"
	c.Assume([]*api.TaskInfo{task})
	c.RefuseBind(p1.UID, "7")
	c.UpdateSnapshot(s)
	if got := viewOf(s).Jobs["ns/pg"].Tasks["p1"]; got != "Pending@" {
		t.Fatalf("p1 after a refusal of an older version = %s, want Pending@", got)
	}
}

func TestWaitForPodGroupsLeavesUngroupedPodsToTheController(t *testing.T) {
	c := cache.New([]string{"volcano"}, "default")
	c.WaitForPodGroups()
	c.AddNode(st.MakeNode("n1", "4", "8Gi").Obj())
	pending := st.MakePod("ns", "pending").Req("1", "1Gi").Obj()
	bound := st.MakePod("ns", "bound").Req("2", "1Gi").Node("n1").Phase(corev1.PodRunning).Obj()
	c.AddPod(pending)
	c.AddPod(bound)
	s := snapshot.New()
	c.UpdateSnapshot(s)
	if len(s.Jobs) != 0 {
		t.Fatalf("jobs = %v, want none until the pods name a PodGroup", s.Jobs)
	}
	if got := s.Nodes["n1"].Used.MilliCPU; got != 2000 {
		t.Errorf("node n1 uses %dm cpu, want the bound pod's 2000m", got)
	}

	grouped := pending.DeepCopy()
	grouped.Annotations = map[string]string{schedulingv1beta1.KubeGroupNameAnnotationKey: "podgroup-x"}
	c.AddPod(grouped)
	c.UpdateSnapshot(s)
	if j := s.Jobs["ns/podgroup-x"]; j == nil || len(j.Tasks) != 1 {
		t.Fatalf("job ns/podgroup-x = %v, want the pod once it names its group", j)
	}
}

func TestPodDisruptionBudgetsReachTheSnapshot(t *testing.T) {
	web := st.MakePod("ns", "web-0").Label("app", "web").Node("n1").Phase(corev1.PodRunning).Obj()
	c := st.NewCache(t, st.MakeNode("n1", "4", "8Gi").Obj(), web)
	s := snapshot.New()
	c.UpdateSnapshot(s)
	drain := func() bool {
		select {
		case <-c.Notify():
			return true
		default:
			return false
		}
	}
	drain()
	type result struct {
		Budgets []api.Budget
		Changed bool
		Woken   bool
		Epoch   bool
	}
	steps := []struct {
		name string
		do   func()
		want result
	}{
		{name: "added", do: func() { c.AddPodDisruptionBudget(st.MakePDB("ns", "web", 1).Selector("app", "web").Obj()) },
			want: result{Budgets: []api.Budget{{Key: "ns/web", Allowed: 1}}, Changed: true}},
		{name: "a status write that does not change what it allows", do: func() {
			b := st.MakePDB("ns", "web", 1).Selector("app", "web").Obj()
			b.Status.CurrentHealthy = 3
			c.AddPodDisruptionBudget(b)
		}, want: result{Budgets: []api.Budget{{Key: "ns/web", Allowed: 1}}}},
		{name: "allows less", do: func() { c.AddPodDisruptionBudget(st.MakePDB("ns", "web", 0).Selector("app", "web").Obj()) },
			want: result{Budgets: []api.Budget{{Key: "ns/web", Allowed: 0}}, Changed: true}},
		{name: "allows more", do: func() { c.AddPodDisruptionBudget(st.MakePDB("ns", "web", 2).Selector("app", "web").Obj()) },
			want: result{Budgets: []api.Budget{{Key: "ns/web", Allowed: 2}}, Changed: true, Woken: true, Epoch: true}},
		{name: "selects other pods", do: func() { c.AddPodDisruptionBudget(st.MakePDB("ns", "web", 2).Selector("app", "db").Obj()) },
			want: result{Changed: true, Woken: true, Epoch: true}},
		{name: "selects every pod, a second one added", do: func() {
			c.AddPodDisruptionBudget(st.MakePDB("ns", "web", 2).Selector().Obj())
			c.AddPodDisruptionBudget(st.MakePDB("ns", "all", 1).Selector().Obj())
		}, want: result{Budgets: []api.Budget{{Key: "ns/all", Allowed: 1}, {Key: "ns/web", Allowed: 2}}, Changed: true, Woken: true, Epoch: true}},
		{name: "deleted", do: func() { c.DeletePodDisruptionBudget("ns", "web") },
			want: result{Budgets: []api.Budget{{Key: "ns/all", Allowed: 1}}, Changed: true, Woken: true, Epoch: true}},
		{name: "deleted through the informer's handler", do: func() {
			c.PodDisruptionBudgetHandler().OnDelete(toolscache.DeletedFinalStateUnknown{Key: "ns/all", Obj: st.MakePDB("ns", "all", 1).Obj()})
		}, want: result{Changed: true, Woken: true, Epoch: true}},
		{name: "deleting one not known", do: func() { c.DeletePodDisruptionBudget("ns", "web") }},
	}
	for _, step := range steps {
		epoch := c.CapacityEpoch()
		step.do()
		got := result{Woken: drain(), Epoch: c.CapacityEpoch() != epoch}
		c.UpdateSnapshot(s)
		got.Budgets, got.Changed = s.Budgets(web), s.BudgetsChanged
		if diff := cmp.Diff(step.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", step.name, diff)
		}
	}
}

func TestNominatedNode(t *testing.T) {
	nominatedOnPod := func(p *corev1.Pod) *corev1.Pod {
		p.Status.NominatedNodeName = "n2"
		return p
	}
	cases := map[string]struct {
		pod      *corev1.Pod
		nominate string
		want     string
	}{
		"promised by this scheduler": {
			pod: st.MakePod("ns", "p").Obj(), nominate: "n1", want: "n1",
		},
		"written on the pod by an earlier run": {
			pod: nominatedOnPod(st.MakePod("ns", "p").Obj()), want: "n2",
		},
		"this scheduler's promise comes first": {
			pod: nominatedOnPod(st.MakePod("ns", "p").Obj()), nominate: "n1", want: "n1",
		},
		"a bound pod has none": {
			pod: nominatedOnPod(st.MakePod("ns", "p").Node("n2").Obj()), nominate: "n1",
		},
		"a running pod has none": {
			pod: nominatedOnPod(st.MakePod("ns", "p").Node("n2").Phase(corev1.PodRunning).Obj()),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := st.NewCache(t, st.MakeNode("n1", "4", "8Gi").Obj(), st.MakeNode("n2", "4", "8Gi").Obj(), tc.pod)
			if tc.nominate != "" {
				c.Nominate(tc.pod.UID, tc.nominate)
			}
			s := snapshot.New()
			c.UpdateSnapshot(s)
			if got := s.Jobs[cache.JobIDOf(tc.pod)].Tasks[tc.pod.UID].NominatedNode; got != tc.want {
				t.Errorf("NominatedNode = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestNominationEndsWithTheBind(t *testing.T) {
	p := st.MakePod("ns", "p").Req("1", "").Obj()
	c := st.NewCache(t, st.MakeNode("n1", "4", "8Gi").Obj(), p)
	s := snapshot.New()
	c.Nominate(p.UID, "n1")
	c.UpdateSnapshot(s)
	task := s.Jobs[cache.JobIDOf(p)].Tasks[p.UID].Clone()
	task.NodeName = "n1"
	c.Assume([]*api.TaskInfo{task})
	// The bind fails: the task is pending again, and the promise is not kept for it.
	c.ForgetBind(p.UID)
	c.UpdateSnapshot(s)
	if got := s.Jobs[cache.JobIDOf(p)].Tasks[p.UID]; got.Status != api.Pending || got.NominatedNode != "" {
		t.Errorf("after a failed bind: status %v, nominated %q; want Pending and none", got.Status, got.NominatedNode)
	}
}

// A PodGroup that gives back the room its queue held for it (deleted, or no longer admitted)
// may let a job that could not be admitted in: the capacity epoch says so.
func TestPodGroupsGivingBackRoomAdvanceTheCapacityEpoch(t *testing.T) {
	c := st.NewCache(t)
	steps := []struct {
		name string
		do   func()
		want bool
	}{
		{name: "created Pending", do: func() { c.AddPodGroup(st.MakePodGroup("ns", "pg", 1).Obj()) }},
		{name: "admitted", do: func() { c.AddPodGroup(st.MakePodGroup("ns", "pg", 1).Phase(schedulingv1beta1.PodGroupInqueue).Obj()) }},
		{name: "running", do: func() { c.AddPodGroup(st.MakePodGroup("ns", "pg", 1).Phase(schedulingv1beta1.PodGroupRunning).Obj()) }},
		{name: "completed", do: func() { c.AddPodGroup(st.MakePodGroup("ns", "pg", 1).Phase(schedulingv1beta1.PodGroupCompleted).Obj()) }, want: true},
		{name: "admitted again, then deleted", do: func() {
			c.AddPodGroup(st.MakePodGroup("ns", "pg", 1).Phase(schedulingv1beta1.PodGroupInqueue).Obj())
			c.DeletePodGroup("ns", "pg")
		}, want: true},
	}
	for _, step := range steps {
		epoch := c.CapacityEpoch()
		step.do()
		if got := c.CapacityEpoch() != epoch; got != step.want {
			t.Errorf("%s: epoch advanced %v, want %v", step.name, got, step.want)
		}
	}
}
