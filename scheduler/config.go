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
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/caldera-sh/caldera/scheduler/conf"
	"github.com/caldera-sh/caldera/scheduler/framework"
	"github.com/caldera-sh/caldera/scheduler/metrics"
)

// configSource follows the configuration: it applies each new text that parses and checks, and
// refuses the others with a log line and an event, keeping the last good configuration.
type configSource struct {
	s        *Scheduler
	mu       sync.Mutex
	lastText []byte
	seen     bool
}

// apply loads a configuration text from source; regarding is the object events are recorded
// on (nil: none). It returns whether the text was taken.
func (c *configSource) apply(data []byte, source string, regarding runtime.Object) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seen && bytes.Equal(data, c.lastText) {
		return true
	}
	c.seen = true
	c.lastText = append([]byte(nil), data...)
	cfg, err := framework.Load(data, c.s.registry)
	if err != nil {
		err = conf.WithLines(data, err)
		msg := fmt.Sprintf("scheduler configuration from %s refused, the last good configuration stays in force: %s", source, oneLine(err))
		c.s.log.Error(err, "scheduler configuration refused; the last good configuration stays in force", "source", source)
		if regarding != nil {
			c.s.recorder.Eventf(regarding, nil, corev1.EventTypeWarning, "InvalidSchedulerConfiguration", "LoadConfiguration", "%s", msg)
		}
		return false
	}
	c.s.config.Store(cfg)
	c.s.log.Info("scheduler configuration loaded", "source", source, "actions", cfg.Source.Actions)
	unknown := make([]string, 0, len(cfg.Unknown))
	for _, u := range cfg.Unknown {
		unknown = append(unknown, u.Name)
		msg := fmt.Sprintf("scheduler configuration from %s: %s", source, u)
		c.s.log.Error(errors.New(msg), "scheduler plugin not implemented", "plugin", u.Name, "source", source)
		if regarding != nil {
			c.s.recorder.Eventf(regarding, nil, corev1.EventTypeWarning, "UnknownSchedulerPlugin", "LoadConfiguration", "%s", msg)
		}
	}
	metrics.SetUnknownPlugins(unknown)
	for _, a := range cfg.Ignored {
		msg := fmt.Sprintf("scheduler configuration from %s: %s", source, a)
		c.s.log.Info("scheduler argument has no effect", "message", msg)
		if regarding != nil {
			c.s.recorder.Eventf(regarding, nil, corev1.EventTypeWarning, "IgnoredSchedulerArgument", "LoadConfiguration", "%s", msg)
		}
	}
	if regarding != nil {
		c.s.recorder.Eventf(regarding, nil, corev1.EventTypeNormal, "SchedulerConfigurationLoaded", "LoadConfiguration",
			"scheduler configuration from %s loaded: actions %q", source, cfg.Source.Actions)
	}
	return true
}

func oneLine(err error) string {
	return strings.ReplaceAll(err.Error(), "\n", "; ")
}

// defaultConfig returns Volcano's default configuration, compiled.
func defaultConfig(reg framework.Registry) (*framework.Config, error) {
	return framework.Load([]byte(conf.DefaultConfiguration), reg)
}

// watchFile reads the configuration file now and then whenever it changes.
func (c *configSource) watchFile(ctx context.Context, path string) {
	read := func() {
		data, err := os.ReadFile(path)
		if err != nil {
			c.mu.Lock()
			first := !c.seen
			c.seen = true
			c.mu.Unlock()
			if first {
				c.s.log.Error(err, "reading the scheduler configuration file; Volcano's default configuration is in force", "file", path)
			}
			return
		}
		var regarding runtime.Object
		if c.s.opts.ConfigEventObject != nil {
			regarding = c.s.opts.ConfigEventObject
		}
		c.apply(data, "file "+path, regarding)
	}
	read()
	ticker := c.s.clock.NewTicker(c.s.opts.ConfigPollInterval)
	go func() {
		defer ticker.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-ticker.C():
				read()
			}
		}
	}()
}

// watchConfigMap follows the configuration ConfigMap with an informer on that one object.
func (c *configSource) watchConfigMap(ctx context.Context) error {
	ref := *c.s.opts.ConfigMap
	lw := toolscache.NewListWatchFromClient(c.s.kube.CoreV1().RESTClient(), "configmaps", ref.Namespace,
		fields.OneTermEqualSelector("metadata.name", ref.Name))
	inf := toolscache.NewSharedIndexInformer(lw, &corev1.ConfigMap{}, 0, toolscache.Indexers{})
	source := fmt.Sprintf("ConfigMap %s key %s", ref, c.s.opts.ConfigMapKey)
	handle := func(obj any) {
		cm, ok := obj.(*corev1.ConfigMap)
		if !ok {
			return
		}
		data, ok := cm.Data[c.s.opts.ConfigMapKey]
		if !ok {
			msg := fmt.Sprintf("the ConfigMap has no key %q; the last good configuration stays in force", c.s.opts.ConfigMapKey)
			c.s.log.Error(nil, msg, "source", source)
			c.s.recorder.Eventf(cm, nil, corev1.EventTypeWarning, "InvalidSchedulerConfiguration", "LoadConfiguration", "%s", msg)
			return
		}
		c.apply([]byte(data), source, cm)
	}
	if _, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    handle,
		UpdateFunc: func(_, obj any) { handle(obj) },
		DeleteFunc: func(any) {
			c.s.log.Error(nil, "the scheduler configuration ConfigMap was deleted; the last good configuration stays in force", "source", source)
		},
	}); err != nil {
		return fmt.Errorf("watching %s: %w", source, err)
	}
	go inf.Run(ctx.Done())
	if !toolscache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		return fmt.Errorf("watching %s: the informer did not sync", source)
	}
	if len(inf.GetStore().List()) == 0 {
		c.s.log.Info("the scheduler configuration ConfigMap does not exist (yet); Volcano's default configuration is in force", "source", source)
	}
	return nil
}
