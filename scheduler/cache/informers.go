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

package cache

import (
	"context"
	"fmt"

	toolscache "k8s.io/client-go/tools/cache"
	crcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// SharedInformer returns the manager's informer for obj's kind as client-go's shared index
// informer (what client-go's listers and kube-scheduler's libraries read), starting it if it is
// not yet; it does not wait for it to sync.
func SharedInformer(ctx context.Context, informers crcache.Informers, obj client.Object) (toolscache.SharedIndexInformer, error) {
	inf, err := informers.GetInformer(ctx, obj, crcache.BlockUntilSynced(false))
	if err != nil {
		return nil, fmt.Errorf("getting the %T informer: %w", obj, err)
	}
	shared, ok := inf.(toolscache.SharedIndexInformer)
	if !ok {
		return nil, fmt.Errorf("the %T informer is a %T, not a shared index informer", obj, inf)
	}
	return shared, nil
}
