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

// Package caldera gives test suites what cmd/manager runs, in one place.
package caldera

import (
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/caldera-sh/caldera/controllers"
	"github.com/caldera-sh/caldera/scheduler"
)

// Setup returns the function that adds what cmd/manager runs to a manager (for
// framework.StartManager): Caldera's controllers with c, and the in-tree scheduler with s,
// waiting for the PodGroup controller to group pods that name no PodGroup, as the manager's does.
func Setup(c controllers.Options, s scheduler.Options) func(ctrl.Manager) error {
	return func(mgr ctrl.Manager) error {
		if err := controllers.Setup(mgr, c); err != nil {
			return err
		}
		s.WaitForPodGroups = true
		sched, err := scheduler.New(mgr, s)
		if err != nil {
			return err
		}
		return mgr.Add(sched)
	}
}
