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

package controllers

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
)

// Each object's events go through one shard, always the same, and objects spread over all of
// them.
func TestShardedRecorderKeepsAnObjectsEventsTogether(t *testing.T) {
	fakes := make([]*record.FakeRecorder, EventWriters)
	r := &shardedRecorder{}
	for i := range fakes {
		fakes[i] = record.NewFakeRecorder(1000)
		r.shards = append(r.shards, fakes[i])
	}
	const jobs = 200
	for i := range jobs {
		job := &batchv1alpha1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("job-%d", i), UID: types.UID(fmt.Sprintf("uid-%d", i))}}
		r.Event(job, corev1.EventTypeNormal, "Running", job.Name)
		r.Eventf(job, corev1.EventTypeNormal, "Completed", "%s", job.Name)
		r.AnnotatedEventf(job, map[string]string{"a": "b"}, corev1.EventTypeWarning, "Restarted", "%s", job.Name)
	}
	// Without a UID, by namespace and name.
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "no-uid"}}
	r.Event(pod, corev1.EventTypeNormal, "A", "no-uid")
	r.Event(pod, corev1.EventTypeNormal, "B", "no-uid")

	seen := map[string]int{}
	for shard, f := range fakes {
		close(f.Events)
		var got []string
		for e := range f.Events {
			got = append(got, e)
		}
		if len(got) == 0 {
			t.Errorf("shard %d recorded nothing of %d objects", shard, jobs+1)
		}
		byObject := map[string][]string{}
		for _, e := range got {
			var kind, reason, object string
			if _, err := fmt.Sscan(e, &kind, &reason, &object); err != nil {
				t.Fatalf("event %q: %v", e, err)
			}
			byObject[object] = append(byObject[object], reason)
		}
		for object, reasons := range byObject {
			if other, ok := seen[object]; ok {
				t.Errorf("%s: events in shards %d and %d", object, other, shard)
			}
			seen[object] = shard
			want := []string{"Running", "Completed", "Restarted"}
			if object == "no-uid" {
				want = []string{"A", "B"}
			}
			if diff := cmp.Diff(want, reasons); diff != "" {
				t.Errorf("%s: events (-want +got):\n%s", object, diff)
			}
		}
	}
	if len(seen) != jobs+1 {
		t.Errorf("events of %d objects recorded, want %d", len(seen), jobs+1)
	}
}
