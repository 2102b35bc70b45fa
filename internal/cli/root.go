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

// Package cli is vcctl, Caldera's command-line client, compatible with Volcano's: the same
// commands, flags, defaults and table columns. It is a client only: it reads objects, creates
// and deletes jobs and queues, and asks the controllers for actions by creating Commands.
//
// Everything a command prints is computed by a pure function of the objects it read (and the
// time, for ages), so the output is tested without a cluster.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/caldera-sh/caldera/internal/scheme"
)

// Options are what vcctl needs from its surroundings. The zero value of every field means the
// process's own: standard streams and the real clock.
type Options struct {
	// In is read by `job run -f -`.
	In io.Reader
	// Out receives the output of commands.
	Out io.Writer
	// ErrOut receives warnings.
	ErrOut io.Writer
	// Clock gives the time that ages (AGE columns, "5m ago") are measured from.
	Clock clock.PassiveClock
	// Name is what the user typed to run vcctl, shown in help and usage: "vcctl" (the
	// default), or "kubectl vc" when run as a kubectl plugin (see InvocationName).
	Name string
}

// InvocationName is the name to show for a binary run as arg0 (os.Args[0]): "kubectl <name>"
// for a kubectl plugin, whose file (or the symlink krew makes to it) is kubectl-<name>, with
// kubectl's mapping of "_" in the file name to "-" in the command; "vcctl" otherwise.
func InvocationName(arg0 string) string {
	base := strings.TrimSuffix(filepath.Base(arg0), ".exe")
	if plugin, ok := strings.CutPrefix(base, "kubectl-"); ok && plugin != "" {
		return "kubectl " + strings.ReplaceAll(plugin, "_", "-")
	}
	return "vcctl"
}

func (o Options) withDefaults() Options {
	if o.In == nil {
		o.In = os.Stdin
	}
	if o.Out == nil {
		o.Out = os.Stdout
	}
	if o.ErrOut == nil {
		o.ErrOut = os.Stderr
	}
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	if o.Name == "" {
		o.Name = "vcctl"
	}
	return o
}

// globalFlags are the flags every command takes, as in Volcano: where the API server is.
type globalFlags struct {
	master     string
	kubeconfig string
}

// env is what every command's run function gets: the options and the global flags.
type env struct {
	Options
	global *globalFlags
}

// NewRootCommand returns the vcctl command tree. Execute it with ExecuteContext; it returns the
// first error, already worded for the user, and prints nothing about it itself.
func NewRootCommand(opts Options) *cobra.Command {
	e := &env{Options: opts.withDefaults(), global: &globalFlags{}}
	root := &cobra.Command{
		Use:   "vcctl",
		Short: "vcctl controls Caldera (Volcano-compatible) jobs and queues",
		Long: "vcctl controls Caldera jobs and queues. It is compatible with Volcano's vcctl: the same\n" +
			"commands, flags and columns. Suspend, resume and queue open/close create Commands that the\n" +
			"controllers carry out.",
		SilenceUsage:  true,
		SilenceErrors: true,
		// Help, usage and the errors naming a command path say what the user typed.
		Annotations: map[string]string{cobra.CommandDisplayNameAnnotation: e.Name},
	}
	root.CompletionOptions.DisableDefaultCmd = true
	root.SetIn(e.In)
	root.SetOut(e.Out)
	root.SetErr(e.ErrOut)
	root.PersistentFlags().StringVarP(&e.global.master, "master", "s", "",
		"the address of the Kubernetes API server; overrides the server in the kubeconfig")
	root.PersistentFlags().StringVarP(&e.global.kubeconfig, "kubeconfig", "k", "",
		"path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config, then the in-cluster config)")

	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return fmt.Errorf("%w: see `%s --help` for the flags", err, cmd.CommandPath())
	})
	root.AddCommand(newJobCommand(e), newCronJobCommand(e), newQueueCommand(e), newPodCommand(e),
		newFlowCommand(e, jobFlowKind), newFlowCommand(e, jobTemplateKind), newVersionCommand(e))
	return root
}

// client returns a client for the cluster the global flags point at, with Caldera's scheme.
func (e *env) client() (client.Client, error) {
	cfg, err := restConfig(e.global.master, e.global.kubeconfig)
	if err != nil {
		return nil, err
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme.New()})
	if err != nil {
		return nil, fmt.Errorf("connecting to the API server at %s: %w", cfg.Host, err)
	}
	// Everything vcctl writes is recorded under its own field manager, so that GitOps tools
	// and `vcctl queue operate -a update` can tell vcctl's changes from Git's.
	return client.WithFieldOwner(c, FieldManager), nil
}

// restConfig resolves the cluster the way kubectl does: an explicit kubeconfig file, else the
// files in $KUBECONFIG, else ~/.kube/config, else the in-cluster config; master overrides the
// server.
func restConfig(master, kubeconfig string) (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if kubeconfig != "" {
		if _, err := os.Stat(kubeconfig); err != nil {
			return nil, fmt.Errorf("reading the kubeconfig given by -k/--kubeconfig: %w", err)
		}
		rules.ExplicitPath = kubeconfig
	}
	overrides := &clientcmd.ConfigOverrides{}
	if master != "" {
		overrides.ClusterInfo.Server = master
	}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides).ClientConfig()
	if err != nil {
		if clientcmd.IsEmptyConfig(err) {
			return nil, errors.New("no cluster configured: pass -k/--kubeconfig, set KUBECONFIG, " +
				"write ~/.kube/config, or pass -s/--master with the API server's address")
		}
		return nil, fmt.Errorf("loading the cluster configuration (-k/--kubeconfig, -s/--master): %w", err)
	}
	return cfg, nil
}

// runE adapts a command body to cobra, giving it the command's context.
func runE(body func(ctx context.Context, cmd *cobra.Command) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, _ []string) error {
		return body(cmd.Context(), cmd)
	}
}
