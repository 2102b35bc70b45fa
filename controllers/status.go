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
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// writeStatus writes obj's status, when it changed from read (the object as the reconcile read
// it), in one merge patch of the status subresource: a phase, its counters, its conditions and
// status.observedGeneration reach watchers together, so a watch never sees new conditions beside
// an old phase or before their observedGeneration (a helper that patches conditions apart from
// the rest of the status does). Each kind's status has one writer, its controller, so the patch
// carries no resourceVersion; a list such as the conditions is replaced whole.
func writeStatus(ctx context.Context, c client.Client, read, obj client.Object, fieldOwner string) error {
	p := client.MergeFrom(read)
	data, err := p.Data(obj)
	if err != nil {
		return fmt.Errorf("computing the status patch: %w", err)
	}
	if string(data) == "{}" {
		return nil
	}
	return c.Status().Patch(ctx, obj, p, client.FieldOwner(fieldOwner))
}

// writeStatusFrom is writeStatus for a status computed from the previous status (a JobFlow's keeps
// the record of jobs deleted since): the patch carries read's resourceVersion, so a reconcile that
// read a stale copy from the cache is refused with a Conflict instead of writing a status computed
// from an old one over a newer one. The newer object's watch event brings the next reconcile.
func writeStatusFrom(ctx context.Context, c client.Client, read, obj client.Object, fieldOwner string) error {
	p := client.MergeFromWithOptions(read, client.MergeFromWithOptimisticLock{})
	changed, err := client.MergeFrom(read).Data(obj)
	if err != nil {
		return fmt.Errorf("computing the status patch: %w", err)
	}
	if string(changed) == "{}" {
		return nil
	}
	return c.Status().Patch(ctx, obj, p, client.FieldOwner(fieldOwner))
}
