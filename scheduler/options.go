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
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
)

// Defaults of Options.
const (
	// DefaultSchedulerName is the schedulerName served when none is given.
	DefaultSchedulerName = "volcano"
	// DefaultConfigMapKey is the key of the configuration in its ConfigMap.
	DefaultConfigMapKey = "volcano-scheduler.conf"
	// DefaultSchedulePeriod is the longest time between two cycles.
	DefaultSchedulePeriod = time.Second
	// DefaultMinCycleInterval is the shortest time between two cycles.
	DefaultMinCycleInterval = 10 * time.Millisecond
	// DefaultBindWorkers is the number of workers that bind pods.
	DefaultBindWorkers = 16
	// DefaultStatusWorkers is the number of workers that write PodGroup and Queue statuses.
	DefaultStatusWorkers = 4
	// DefaultStatusMaxDelay is the longest a PodGroup status write waits (see
	// Options.StatusMaxDelay).
	DefaultStatusMaxDelay = 30 * time.Second
	// DefaultConfigPollInterval is how often the configuration file is checked for changes.
	DefaultConfigPollInterval = 5 * time.Second
)

// Options configure the scheduler.
type Options struct {
	// SchedulerNames are the schedulerNames whose pods the scheduler places (default "volcano").
	SchedulerNames []string
	// WaitForPodGroups leaves the pods that name no PodGroup to the PodGroup controller, which
	// gives each a PodGroup after its owner (podgroup-<owner uid>, minMember from the owner's
	// scheduling.volcano.sh/group-min-member) and annotates it; the manager runs that controller
	// and sets this. When false, each such pod is placed alone as a gang of one.
	WaitForPodGroups bool
	// DefaultQueue is the queue of jobs that name none; it is created when absent (default "default").
	DefaultQueue string
	// ConfigFile is a file holding the configuration in Volcano's format, reloaded when it changes.
	ConfigFile string
	// ConfigMap names a ConfigMap holding the configuration under ConfigMapKey, reloaded when it
	// changes. When neither ConfigFile nor ConfigMap is given, Volcano's default configuration is used.
	ConfigMap *types.NamespacedName
	// ConfigMapKey is the ConfigMap key of the configuration (default "volcano-scheduler.conf").
	ConfigMapKey string
	// ConfigPollInterval is how often ConfigFile is read for changes (default 5s).
	ConfigPollInterval time.Duration
	// ConfigEventObject is the object configuration events are recorded on when the configuration
	// comes from a file (for example the manager's Pod). Events of a ConfigMap configuration are
	// recorded on the ConfigMap.
	ConfigEventObject *corev1.ObjectReference
	// SchedulePeriod is the longest time between two cycles (default 1s); a change in the
	// cluster starts a cycle sooner.
	SchedulePeriod time.Duration
	// MinCycleInterval is the shortest time between two cycles (default 10ms), so that a burst of
	// changes is taken in one cycle.
	MinCycleInterval time.Duration
	// BindWorkers is the number of workers binding pods through pods/binding (default 16).
	BindWorkers int
	// StatusWorkers is the number of workers writing statuses (default 4). Status writes are
	// coalesced per object, so a few workers keep up while leaving the API server to the binds.
	StatusWorkers int
	// StatusMaxDelay is the longest a PodGroup status write (other than an admission, which goes
	// at once) waits while binds are under way (default 30s): binds come first. A Volcano job's
	// PodGroup waits this long for its Completed status even with no bind under way, since the
	// job controller deletes it when the job ends.
	StatusMaxDelay time.Duration
	// Clock is the scheduler's clock (default the real clock).
	Clock clock.WithTicker
	// OnCycle, when set, is called after every cycle with what it did.
	OnCycle func(CycleStats)
}

// CycleStats describes one scheduling cycle.
type CycleStats struct {
	// Start is when the cycle started.
	Start time.Time
	// Duration is how long the cycle took, status hand-off included.
	Duration time.Duration
	// SnapshotDuration is how long bringing the snapshot up to date took.
	SnapshotDuration time.Duration
	// JobsChanged is the number of jobs the snapshot update replaced.
	JobsChanged int
	// JobsPending is the number of jobs needing attention.
	JobsPending int
	// Binds is the number of pods handed to the binder.
	Binds int
	// Evictions is the number of pods handed to the evictor.
	Evictions int
	// StatusWrites is the number of status writes handed to the status workers.
	StatusWrites int
}

func (o *Options) setDefaults() error {
	if len(o.SchedulerNames) == 0 {
		o.SchedulerNames = []string{DefaultSchedulerName}
	}
	if o.DefaultQueue == "" {
		o.DefaultQueue = schedulingv1beta1.DefaultQueue
	}
	if o.ConfigMapKey == "" {
		o.ConfigMapKey = DefaultConfigMapKey
	}
	if o.ConfigPollInterval == 0 {
		o.ConfigPollInterval = DefaultConfigPollInterval
	}
	if o.SchedulePeriod == 0 {
		o.SchedulePeriod = DefaultSchedulePeriod
	}
	if o.MinCycleInterval == 0 {
		o.MinCycleInterval = DefaultMinCycleInterval
	}
	if o.BindWorkers == 0 {
		o.BindWorkers = DefaultBindWorkers
	}
	if o.StatusWorkers == 0 {
		o.StatusWorkers = DefaultStatusWorkers
	}
	if o.StatusMaxDelay == 0 {
		o.StatusMaxDelay = DefaultStatusMaxDelay
	}
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	var errs []error
	for _, n := range o.SchedulerNames {
		if n == "" {
			errs = append(errs, errors.New("SchedulerNames: an empty name; give names such as \"volcano\""))
		}
	}
	if o.ConfigFile != "" && o.ConfigMap != nil {
		errs = append(errs, errors.New("ConfigFile and ConfigMap: give one configuration source, not both"))
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"SchedulePeriod", o.SchedulePeriod}, {"MinCycleInterval", o.MinCycleInterval}, {"ConfigPollInterval", o.ConfigPollInterval}, {"StatusMaxDelay", o.StatusMaxDelay}} {
		if d.v < 0 {
			errs = append(errs, fmt.Errorf("%s: must be positive, got %s", d.name, d.v))
		}
	}
	if o.BindWorkers < 0 || o.StatusWorkers < 0 {
		errs = append(errs, fmt.Errorf("BindWorkers and StatusWorkers: must be positive, got %d and %d", o.BindWorkers, o.StatusWorkers))
	}
	return errors.Join(errs...)
}
