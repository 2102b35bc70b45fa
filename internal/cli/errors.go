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

package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
)

// apiError words an error from the API server for the user: what vcctl was doing (doing, for
// example "creating job default/x"), what went wrong, and what to do about it. notFound is the
// advice for a missing object; empty means the error is reported as it is.
func apiError(doing string, err error, notFound string) error {
	switch {
	case err == nil:
		return nil
	case apierrors.IsNotFound(err) && notFound != "":
		return fmt.Errorf("%s", notFound)
	case meta.IsNoMatchError(err):
		return fmt.Errorf("%s: the cluster does not serve this API (%v): install Caldera's CRDs (config/crd) "+
			"or point -k/--kubeconfig at a cluster running Caldera", doing, err)
	case apierrors.IsForbidden(err):
		return fmt.Errorf("%s: forbidden (%s): ask for RBAC permission, or use a kubeconfig (-k) that has it",
			doing, apierrors.ReasonForError(err))
	case apierrors.IsUnauthorized(err):
		return fmt.Errorf("%s: the API server did not accept the credentials: refresh the kubeconfig (-k/--kubeconfig)", doing)
	case apierrors.IsInvalid(err):
		return fmt.Errorf("%s: the API server refused it: %s", doing, invalidDetails(err))
	default:
		return fmt.Errorf("%s: %w", doing, err)
	}
}

// invalidDetails lists the field errors of an Invalid error, one per field, or its message.
func invalidDetails(err error) string {
	status, ok := err.(apierrors.APIStatus)
	if !ok || status.Status().Details == nil || len(status.Status().Details.Causes) == 0 {
		return err.Error()
	}
	var parts []string
	for _, c := range status.Status().Details.Causes {
		if c.Field != "" {
			parts = append(parts, c.Field+": "+c.Message)
		} else {
			parts = append(parts, c.Message)
		}
	}
	return strings.Join(parts, "; ")
}

// noArgs refuses positional arguments: every vcctl command takes its input from flags, as
// Volcano's does. hint says which flag to use instead.
func noArgs(hint string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			return fmt.Errorf("%s takes no arguments, got %q: %s", cmd.CommandPath(), strings.Join(args, " "), hint)
		}
		return nil
	}
}

// changedFlags returns which of the named flags (long names) were given on the command line.
func changedFlags(cmd *cobra.Command, names ...string) map[string]bool {
	changed := map[string]bool{}
	for _, name := range names {
		if cmd.Flags().Changed(name) {
			changed[name] = true
		}
	}
	return changed
}
