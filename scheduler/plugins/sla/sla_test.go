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

package sla

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/conf"
	"github.com/caldera-sh/caldera/scheduler/framework"
)

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func d(s string) *time.Duration {
	v, _ := time.ParseDuration(s)
	return &v
}

func TestOrder(t *testing.T) {
	early := &api.JobInfo{CreationTime: epoch}
	late := &api.JobInfo{CreationTime: epoch.Add(time.Hour)}
	cases := map[string]struct {
		lw, rw *time.Duration
		l, r   *api.JobInfo
		want   int
	}{
		"no waiting times":                     {l: early, r: late, want: 0},
		"a job with a waiting time goes first": {lw: d("1h"), l: late, r: early, want: -1},
		"and the other way round":              {rw: d("1h"), l: early, r: late, want: 1},
		"the nearer deadline first":            {lw: d("2h"), rw: d("30m"), l: early, r: late, want: 1},
		"equal deadlines":                      {lw: d("2h"), rw: d("1h"), l: early, r: late, want: 0},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Order(tc.lw, tc.rw, tc.l, tc.r)); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestVote(t *testing.T) {
	j := &api.JobInfo{CreationTime: epoch}
	cases := map[string]struct {
		w    *time.Duration
		now  time.Time
		want int
	}{
		"no waiting time abstains":     {now: epoch.Add(time.Hour), want: framework.Abstain},
		"still within it abstains":     {w: d("1h"), now: epoch.Add(59 * time.Minute), want: framework.Abstain},
		"past it forces the job ahead": {w: d("1h"), now: epoch.Add(time.Hour), want: framework.ForcePermit},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Vote(tc.w, j, tc.now)); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestArguments(t *testing.T) {
	own := &api.JobInfo{WaitingTime: d("5m")}
	cases := map[string]struct {
		args    conf.Arguments
		want    *time.Duration
		wantErr string
	}{
		"the plugin's waiting time applies to jobs without one": {args: conf.Arguments{"sla-waiting-time": "1h2m3s"}, want: d("1h2m3s")},
		"no argument":     {},
		"a bad duration":  {args: conf.Arguments{"sla-waiting-time": "soon"}, wantErr: `sla-waiting-time: must be a duration such as "30m" or "1h2m3s", got "soon"`},
		"a misspelt name": {args: conf.Arguments{"sla-wait": "1h"}, wantErr: "sla-wait: unknown argument; the arguments are sla-waiting-time"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p, err := New(tc.args)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("New() error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("New() error = %v", err)
			}
			pl := p.(*plugin)
			if diff := cmp.Diff(tc.want, pl.waiting(&api.JobInfo{})); diff != "" {
				t.Errorf("waiting time mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(d("5m"), pl.waiting(own)); diff != "" {
				t.Errorf("a job's own waiting time must win (-want +got):\n%s", diff)
			}
		})
	}
}
