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

package expectations

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
)

func TestStore(t *testing.T) {
	owner := types.NamespacedName{Namespace: "ns", Name: "job"}
	other := types.NamespacedName{Namespace: "ns", Name: "other"}
	type step struct {
		expectCreate  []string
		expectDelete  []types.UID
		observeCreate []string
		observeDelete []types.UID
		advance       time.Duration
		forget        bool
	}
	cases := map[string]struct {
		steps         []step
		wantSatisfied bool
		wantPending   [2]int
	}{
		"nothing expected": {
			wantSatisfied: true,
		},
		"creations pending": {
			steps:       []step{{expectCreate: []string{"job-a-0", "job-a-1"}}},
			wantPending: [2]int{2, 0},
		},
		"creations observed": {
			steps: []step{
				{expectCreate: []string{"job-a-0", "job-a-1"}},
				{observeCreate: []string{"job-a-1", "job-a-0"}},
			},
			wantSatisfied: true,
		},
		"one deletion still pending": {
			steps: []step{
				{expectCreate: []string{"job-a-0"}, expectDelete: []types.UID{"u1", "u2"}},
				{observeCreate: []string{"job-a-0"}, observeDelete: []types.UID{"u2"}},
			},
			wantPending: [2]int{0, 1},
		},
		"observing unknown names is harmless": {
			steps: []step{
				{observeCreate: []string{"x"}, observeDelete: []types.UID{"y"}},
			},
			wantSatisfied: true,
		},
		"expired after ttl": {
			steps: []step{
				{expectCreate: []string{"job-a-0"}},
				{advance: time.Minute},
			},
			wantSatisfied: true,
		},
		"not expired before ttl": {
			steps: []step{
				{expectCreate: []string{"job-a-0"}},
				{advance: time.Minute - time.Second},
			},
			wantPending: [2]int{1, 0},
		},
		"forget": {
			steps: []step{
				{expectCreate: []string{"job-a-0"}},
				{forget: true},
			},
			wantSatisfied: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			clk := clocktesting.NewFakePassiveClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
			s := NewStore(clk, time.Minute)
			s.ExpectCreations(other, "other-a-0")
			for _, st := range tc.steps {
				s.ExpectCreations(owner, st.expectCreate...)
				s.ExpectDeletions(owner, st.expectDelete...)
				for _, n := range st.observeCreate {
					s.CreationObserved(owner, n)
				}
				for _, u := range st.observeDelete {
					s.DeletionObserved(owner, u)
				}
				clk.SetTime(clk.Now().Add(st.advance))
				if st.forget {
					s.Forget(owner)
				}
			}
			for _, st := range tc.steps {
				for _, u := range st.expectDelete {
					want := !slices.Contains(st.observeDelete, u)
					for _, later := range tc.steps {
						if slices.Contains(later.observeDelete, u) || later.forget || later.advance >= time.Minute {
							want = false
						}
					}
					if got := s.ExpectingDeletion(owner, u); got != want {
						t.Errorf("ExpectingDeletion(%s) = %v, want %v", u, got, want)
					}
				}
			}
			c, d := s.Pending(owner)
			if diff := cmp.Diff(tc.wantPending, [2]int{c, d}); diff != "" {
				t.Errorf("Pending (-want +got):\n%s", diff)
			}
			if got := s.Satisfied(owner); got != tc.wantSatisfied {
				t.Errorf("Satisfied = %v, want %v", got, tc.wantSatisfied)
			}
		})
	}
}
