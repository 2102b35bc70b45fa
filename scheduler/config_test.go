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

package scheduler

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	testingclock "k8s.io/utils/clock/testing"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/scheduler/cache"
)

func TestConfigFileReload(t *testing.T) {
	path := filepath.Join(t.TempDir(), "scheduler.conf")
	write := func(text string) {
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("actions: \"enqueue, allocate\"\ntiers:\n- plugins:\n  - name: gang\n")
	s := newOffline(t, cache.New([]string{"volcano"}, schedulingv1beta1.DefaultQueue))
	clock := s.clock.(*testingclock.FakeClock)
	rec := events.NewFakeRecorder(10)
	s.recorder = rec
	s.opts.ConfigEventObject = &corev1.ObjectReference{Kind: "Pod", Namespace: "caldera-system", Name: "manager"}
	s.configs = &configSource{s: s}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s.configs.watchFile(ctx, path)
	actions := func() string { return s.config.Load().Source.Actions }
	if diff := cmp.Diff("enqueue, allocate", actions()); diff != "" {
		t.Fatalf("first load (-want +got):\n%s", diff)
	}

	// An invalid configuration is refused with an event; the last good one stays.
	write("actions: \"enqueue, alocate\"\n")
	waitFor(t, clock, func() bool { return len(rec.Events) >= 2 })
	<-rec.Events // the first load
	refused := <-rec.Events
	if !strings.Contains(refused, "InvalidSchedulerConfiguration") || !strings.Contains(refused, `unknown action "alocate"`) {
		t.Errorf("event = %q, want the refusal naming the action", refused)
	}
	if diff := cmp.Diff("enqueue, allocate", actions()); diff != "" {
		t.Errorf("after an invalid configuration (-want +got):\n%s", diff)
	}

	// A valid change is taken.
	write("actions: \"enqueue, allocate, backfill\"\n")
	waitFor(t, clock, func() bool { return actions() == "enqueue, allocate, backfill" })
}

// waitFor steps the fake clock past the poll interval until cond holds.
func waitFor(t *testing.T, clock *testingclock.FakeClock, cond func() bool) {
	t.Helper()
	for i := 0; i < 200; i++ {
		if cond() {
			return
		}
		clock.Step(DefaultConfigPollInterval)
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("condition not met")
}

func TestOptionsDefaultsAndErrors(t *testing.T) {
	var o Options
	if err := o.setDefaults(); err != nil {
		t.Fatal(err)
	}
	got := []any{o.SchedulerNames, o.DefaultQueue, o.ConfigMapKey, o.SchedulePeriod, o.BindWorkers, o.StatusWorkers}
	want := []any{[]string{"volcano"}, "default", "volcano-scheduler.conf", time.Second, 16, 4}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
	bad := Options{SchedulerNames: []string{""}, ConfigFile: "x", ConfigMap: &types.NamespacedName{Namespace: "a", Name: "b"}, SchedulePeriod: -time.Second}
	err := bad.setDefaults()
	for _, want := range []string{"SchedulerNames: an empty name", "give one configuration source, not both", "SchedulePeriod: must be positive"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("setDefaults() error = %v, want it to contain %q", err, want)
		}
	}
}

func TestUnknownPluginsAreLeftOutAndReported(t *testing.T) {
	path := filepath.Join(t.TempDir(), "scheduler.conf")
	// Volcano's gang-eviction configuration names plugins Caldera does not implement.
	text := "actions: \"enqueue, allocate\"\ntiers:\n- plugins:\n  - name: gang\n  - name: deviceshare\n- plugins:\n  - name: usage\n  - name: predicates\n"
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	s := newOffline(t, cache.New([]string{"volcano"}, schedulingv1beta1.DefaultQueue))
	rec := events.NewFakeRecorder(10)
	s.recorder = rec
	s.opts.ConfigEventObject = &corev1.ObjectReference{Kind: "Pod", Namespace: "caldera-system", Name: "manager"}
	s.configs = &configSource{s: s}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s.configs.watchFile(ctx, path)

	cfg := s.config.Load()
	var kept []string
	for _, tier := range cfg.Tiers {
		for _, p := range tier.Plugins {
			kept = append(kept, p.Name)
		}
	}
	if diff := cmp.Diff([]string{"gang", "predicates"}, kept); diff != "" {
		t.Errorf("plugins in force (-want +got):\n%s", diff)
	}
	var warnings []string
	for len(rec.Events) > 0 {
		if e := <-rec.Events; strings.Contains(e, "UnknownSchedulerPlugin") {
			warnings = append(warnings, e)
		}
	}
	want := []string{
		`Warning UnknownSchedulerPlugin scheduler configuration from file ` + path + `: tiers[0].plugins[1].name: plugin "deviceshare" is not implemented by Caldera and is left out; the configuration's other plugins run without it`,
		`Warning UnknownSchedulerPlugin scheduler configuration from file ` + path + `: tiers[1].plugins[0].name: plugin "usage" is not implemented by Caldera and is left out; the configuration's other plugins run without it`,
	}
	if diff := cmp.Diff(want, warnings); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestIgnoredArgumentsAreReported(t *testing.T) {
	path := filepath.Join(t.TempDir(), "scheduler.conf")
	text := "actions: \"enqueue, allocate, preempt\"\ntiers:\n- plugins:\n  - name: gang\n  - name: predicates\n    arguments:\n" +
		"      predicate.DynamicResourceAllocationEnable: true\n      predicate.GPUSharingEnable: false\n  - name: nodeorder\n    arguments:\n      imagelocality.weight: 1\n" +
		"  - name: network-topology-aware\n  - name: proportion\n    enableHierarchy: true\n" +
		"configurations:\n- name: preempt\n  arguments:\n    enableTopologyAwarePreemption: true\n"
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	s := newOffline(t, cache.New([]string{"volcano"}, schedulingv1beta1.DefaultQueue))
	rec := events.NewFakeRecorder(20)
	s.recorder = rec
	s.opts.ConfigEventObject = &corev1.ObjectReference{Kind: "Pod", Namespace: "caldera-system", Name: "manager"}
	s.configs = &configSource{s: s}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s.configs.watchFile(ctx, path)

	var warnings []string
	for len(rec.Events) > 0 {
		if e := <-rec.Events; strings.Contains(e, "IgnoredSchedulerArgument") {
			warnings = append(warnings, e)
		}
	}
	// GPU sharing is turned off, which is what Caldera does: not reported.
	want := []string{
		`Warning IgnoredSchedulerArgument scheduler configuration from file ` + path + `: tiers[0].plugins[2].arguments.imagelocality.weight: ` +
			`argument "imagelocality.weight" of plugin "nodeorder" turns on the image-locality score, which Caldera does not implement; it has no effect (remove it to silence this warning)`,
		`Warning IgnoredSchedulerArgument scheduler configuration from file ` + path + `: tiers[0].plugins[4].enableHierarchy: argument "enableHierarchy" of plugin "proportion" ` +
			`turns on hierarchical sharing for this plugin (Caldera's queue hierarchies are the capacity plugin's, by spec.parent, and drf's, by volcano.sh/hierarchy), which Caldera does not implement; ` +
			`it has no effect (remove it to silence this warning)`,
		`Warning IgnoredSchedulerArgument scheduler configuration from file ` + path + `: configurations[0].arguments.enableTopologyAwarePreemption: ` +
			`argument "enableTopologyAwarePreemption" of action "preempt" is accepted for compatibility with Volcano and has no effect in Caldera; remove it to silence this warning`}
	if diff := cmp.Diff(want, warnings); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}
