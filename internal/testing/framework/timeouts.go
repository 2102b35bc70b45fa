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

package framework

import "time"

// Timeouts and intervals every integration and e2e spec uses. Keep them here, in one place.
const (
	// Timeout bounds an Eventually that waits on a controller or the scheduler.
	Timeout = 20 * time.Second
	// LongTimeout bounds an Eventually that waits on pods running to completion under KWOK.
	LongTimeout = 90 * time.Second
	// ConsistentlyDuration is how long a Consistently holds.
	ConsistentlyDuration = 2 * time.Second
	// Interval is the poll interval of Eventually and Consistently.
	Interval = 100 * time.Millisecond
	// AutoscalerQuietPeriod is how long a spec watches an autoscaler not add a node: several
	// times what Karpenter takes to add one for pods marked Unschedulable (a batch window of at
	// most 3 s, then its provisioning loop).
	AutoscalerQuietPeriod = 10 * time.Second
	// StartTimeout bounds starting the control plane.
	StartTimeout = 2 * time.Minute
)
