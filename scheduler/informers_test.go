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
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	crcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// syncingInformer is an informer whose sync the test decides.
type syncingInformer struct {
	crcache.Informer
	synced bool
}

func (i *syncingInformer) HasSynced() bool { return i.synced }

// someInformers hands out one syncingInformer per kind, and refuses the kinds it is told to.
type someInformers struct {
	crcache.Informers
	byKind  map[string]*syncingInformer
	refused string
}

func (s *someInformers) GetInformer(_ context.Context, obj client.Object, _ ...crcache.InformerGetOption) (crcache.Informer, error) {
	kind := fmt.Sprintf("%T", obj)
	if kind == s.refused {
		return nil, fmt.Errorf("no informer for %s", kind)
	}
	if s.byKind[kind] == nil {
		s.byKind[kind] = &syncingInformer{}
	}
	return s.byKind[kind], nil
}

// The first cycle waits for the informers the scheduler was handed, and only for those: an
// informer of the manager it never asked for does not hold it.
func TestTrackedInformersWaitForWhatWasHanded(t *testing.T) {
	ctx := context.Background()
	all := &someInformers{byKind: map[string]*syncingInformer{}, refused: "*v1.StorageClass"}
	tracked := &trackedInformers{Informers: all}
	if !tracked.synced() {
		t.Fatalf("no informer handed out: want synced")
	}
	for _, obj := range []client.Object{&corev1.PersistentVolumeClaim{}, &corev1.PersistentVolume{}} {
		if _, err := tracked.GetInformer(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tracked.GetInformer(ctx, &storagev1.StorageClass{}); err == nil {
		t.Fatalf("a refused informer was handed out")
	}
	// An informer of the manager the scheduler did not ask for (a controller's).
	others, err := all.GetInformer(ctx, &corev1.ConfigMap{})
	if err != nil {
		t.Fatal(err)
	}

	all.byKind["*v1.PersistentVolumeClaim"].synced = true
	if tracked.synced() {
		t.Errorf("the PersistentVolume informer has not synced: want not synced")
	}
	all.byKind["*v1.PersistentVolume"].synced = true
	if !tracked.synced() {
		t.Errorf("every informer handed out has synced: want synced")
	}
	if others.HasSynced() {
		t.Fatalf("the controller's informer was to stay unsynced")
	}
}
