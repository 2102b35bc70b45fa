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
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	busv1alpha1 "github.com/caldera-sh/caldera/api/bus/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
)

// defaultQueueName is the name `vcctl queue create` uses without -n, as Volcano's does.
const defaultQueueName = "test"

func newQueueCommand(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "queue",
		Short: "Create, delete, operate, list and get queues",
		Args:  noArgs("pick a subcommand: create, delete, operate, list or get"),
	}
	create, _ := newQueueCreateCommand(e)
	del, _ := newQueueDeleteCommand(e)
	operate, _ := newQueueOperateCommand(e)
	get, _ := newQueueGetCommand(e)
	cmd.AddCommand(create, del, operate, newQueueListCommand(e), get)
	return cmd
}

func queueNotFound(name string) string {
	return fmt.Sprintf("queue %s not found: check -n/--name (`vcctl queue list` lists the queues)", name)
}

func newQueueCreateCommand(e *env) (*cobra.Command, *queueCreateFlags) {
	f := &queueCreateFlags{}
	cmd := &cobra.Command{
		Use:   "create",
		Short: "Create a queue",
		Long: "Create a queue with a weight. -S Closed creates it and then asks the queue controller to\n" +
			"close it (a CloseQueue Command); a new queue is otherwise open.",
		Args: noArgs("name the queue with -n/--name"),
		RunE: runE(func(ctx context.Context, _ *cobra.Command) error {
			queue, action, err := buildQueue(*f)
			if err != nil {
				return err
			}
			c, err := e.client()
			if err != nil {
				return err
			}
			if queue.Spec.Parent != "" {
				parent := &schedulingv1beta1.Queue{}
				if err := c.Get(ctx, client.ObjectKey{Name: queue.Spec.Parent}, parent); err != nil {
					return apiError("reading the parent queue "+queue.Spec.Parent, err,
						fmt.Sprintf("--parent %s: queue %s not found: create it first, or name an existing queue",
							queue.Spec.Parent, queue.Spec.Parent))
				}
			}
			if err := c.Create(ctx, queue); err != nil {
				if apierrors.IsAlreadyExists(err) {
					return fmt.Errorf("queue %s already exists: choose another -n/--name, or change its weight with "+
						"`vcctl queue operate -n %s -a update -w <weight>`", queue.Name, queue.Name)
				}
				return apiError("creating queue "+queue.Name, err, "")
			}
			if _, err := fmt.Fprintf(e.Out, "create queue %s successfully\n", queue.Name); err != nil {
				return err
			}
			if action == "" {
				return nil
			}
			return e.createQueueCommand(ctx, c, queue, action)
		}),
	}
	flags := cmd.Flags()
	flags.StringVarP(&f.name, "name", "n", defaultQueueName, "the name of the queue")
	flags.Int32VarP(&f.weight, "weight", "w", 1, "the weight of the queue, 1 to 65535")
	flags.StringVarP(&f.state, "state", "S", string(schedulingv1beta1.QueueStateOpen), "the state of the queue: Open or Closed")
	flags.StringVar(&f.parent, "parent", "", "the parent of the queue in the queue hierarchy (default: root)")
	return cmd, f
}

// createQueueCommand creates the Command asking the queue controller to take action on queue.
func (e *env) createQueueCommand(ctx context.Context, c client.Client, queue *schedulingv1beta1.Queue, action busv1alpha1.Action) error {
	command := queueActionCommand(queue, action)
	if err := c.Create(ctx, command); err != nil {
		if apierrors.IsNotFound(err) {
			return fmt.Errorf("creating the %s command for queue %s: namespace %s not found: queue Commands are created "+
				"there, so create it (kubectl create namespace %s)", action, queue.Name, command.Namespace, command.Namespace)
		}
		return apiError(fmt.Sprintf("creating the %s command for queue %s", action, queue.Name), err, "")
	}
	_, err := fmt.Fprintf(e.Out, "%s command %s/%s created for queue %s\n", action, command.Namespace, command.Name, queue.Name)
	return err
}

// queueNameFlag is the -n/--name flag naming one queue.
type queueNameFlag struct{ name string }

func newQueueDeleteCommand(e *env) (*cobra.Command, *queueNameFlag) {
	f := &queueNameFlag{}
	cmd := &cobra.Command{
		Use:   "delete",
		Short: "Delete a queue",
		Args:  noArgs("name the queue with -n/--name"),
		RunE: runE(func(ctx context.Context, _ *cobra.Command) error {
			if f.name == "" {
				return errors.New("queue name is required: pass -n/--name")
			}
			c, err := e.client()
			if err != nil {
				return err
			}
			queue := &schedulingv1beta1.Queue{ObjectMeta: metav1.ObjectMeta{Name: f.name}}
			if err := c.Delete(ctx, queue); err != nil {
				return apiError("deleting queue "+f.name, err, queueNotFound(f.name))
			}
			_, err = fmt.Fprintf(e.Out, "delete queue %s successfully\n", f.name)
			return err
		}),
	}
	cmd.Flags().StringVarP(&f.name, "name", "n", "", "the name of the queue")
	return cmd, f
}

// queueOperateFlags are the flags of `vcctl queue operate`.
type queueOperateFlags struct {
	name   string
	action string
	weight int32
	// force lets -a update change a weight that Git (a GitOps tool) or another field manager
	// keeps.
	force bool
}

func newQueueOperateCommand(e *env) (*cobra.Command, *queueOperateFlags) {
	f := &queueOperateFlags{}
	cmd := &cobra.Command{
		Use:   "operate",
		Short: "Open or close a queue, or update its weight",
		Long: "Open or close a queue (-a open|close), which creates an OpenQueue or CloseQueue Command in\n" +
			"namespace default for the queue controller, or set its weight (-a update -w N), which\n" +
			"server-side applies spec.weight as field manager vcctl.\n\n" +
			"-a update refuses a queue whose spec.weight Git keeps: one carrying Argo CD's or Flux's\n" +
			"tracking metadata, or whose spec.weight another field manager wrote. Change the weight in\n" +
			"Git instead, or pass --force to take it anyway until the next sync sets it back.",
		Example: "  vcctl queue operate -n team-a -a close\n  vcctl queue operate -n team-a -a update -w 4",
		Args:    noArgs("name the queue with -n/--name and the action with -a/--action"),
		RunE: runE(func(ctx context.Context, cmd *cobra.Command) error {
			op, err := parseQueueOperation(f.name, f.action, f.weight, cmd.Flags().Changed("weight"))
			if err != nil {
				return err
			}
			c, err := e.client()
			if err != nil {
				return err
			}
			if op.action == "" {
				return e.updateQueueWeight(ctx, c, f.name, op.weight, f.force)
			}
			queue := &schedulingv1beta1.Queue{}
			if err := c.Get(ctx, client.ObjectKey{Name: f.name}, queue); err != nil {
				return apiError("reading queue "+f.name, err, queueNotFound(f.name))
			}
			return e.createQueueCommand(ctx, c, queue, op.action)
		}),
	}
	flags := cmd.Flags()
	flags.StringVarP(&f.name, "name", "n", "", "the name of the queue")
	flags.StringVarP(&f.action, "action", "a", "", "the action: open, close or update")
	flags.Int32VarP(&f.weight, "weight", "w", 0, "the new weight of the queue, with -a update")
	flags.BoolVar(&f.force, "force", false, "with -a update, change the weight even if Git (Argo CD, Flux) or another "+
		"field manager keeps it; the next sync sets it back")
	return cmd, f
}

// updateQueueWeight sets a queue's spec.weight with server-side apply as field manager vcctl.
// It refuses when others keep the weight (weightOwners) unless force is set; then it takes the
// field from them and warns that Git will revert it. The apply carries the resourceVersion
// that was checked, so a queue changed or deleted meanwhile is neither overwritten nor created.
func (e *env) updateQueueWeight(ctx context.Context, c client.Client, name string, weight int32, force bool) error {
	queue := &schedulingv1beta1.Queue{}
	if err := c.Get(ctx, client.ObjectKey{Name: name}, queue); err != nil {
		return apiError("reading queue "+name, err, queueNotFound(name))
	}
	owners := weightOwners(queue)
	if len(owners) > 0 && !force {
		return ownedFieldError("queue "+name, "spec.weight", owners)
	}
	apply := &unstructured.Unstructured{}
	apply.SetAPIVersion(schedulingv1beta1.GroupVersion.String())
	apply.SetKind("Queue")
	apply.SetName(name)
	apply.SetResourceVersion(queue.ResourceVersion)
	if err := unstructured.SetNestedField(apply.Object, int64(weight), "spec", "weight"); err != nil {
		return err
	}
	// Forcing is safe without --force too: the resourceVersion makes the apply fail if the
	// managedFields checked above changed, and then no one but vcctl (possibly by an earlier
	// create or update, a different manager entry) owns spec.weight.
	err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(apply), client.FieldOwner(FieldManager), client.ForceOwnership)
	if err != nil {
		if apierrors.IsConflict(err) {
			return fmt.Errorf("updating the weight of queue %s: it changed while vcctl checked who keeps spec.weight (%v): "+
				"run the command again", name, err)
		}
		return apiError("updating the weight of queue "+name, err, queueNotFound(name))
	}
	if len(owners) > 0 {
		if _, err := io.WriteString(e.ErrOut, forcedFieldWarning("queue "+name, "spec.weight", owners)); err != nil {
			return err
		}
	}
	_, err = fmt.Fprintf(e.Out, "update queue %s weight to %d successfully\n", name, weight)
	return err
}

func newQueueListCommand(e *env) *cobra.Command {
	var tree bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List queues with their PodGroups counted by phase (--tree: as the hierarchy spec.parent makes, with their amounts)",
		Args:  noArgs("queue list takes no filter"),
		RunE: runE(func(ctx context.Context, _ *cobra.Command) error {
			c, err := e.client()
			if err != nil {
				return err
			}
			queues := &schedulingv1beta1.QueueList{}
			if err := c.List(ctx, queues); err != nil {
				return apiError("listing queues", err, "")
			}
			counts, err := e.podGroupCounts(ctx, c)
			if err != nil {
				return err
			}
			out := formatQueueList(queues.Items, counts)
			if tree {
				out = formatQueueTree(queues.Items, counts)
			}
			_, err = io.WriteString(e.Out, out)
			return err
		}),
	}
	cmd.Flags().BoolVar(&tree, "tree", false, "Show the queues as the tree spec.parent makes, each with its deserved share, guarantee, capability and what it and the queues below it hold")
	return cmd
}

// podGroupCounts reads every PodGroup and counts them by queue and phase.
func (e *env) podGroupCounts(ctx context.Context, c client.Client) (map[string]podGroupCounts, error) {
	podGroups := &schedulingv1beta1.PodGroupList{}
	if err := c.List(ctx, podGroups); err != nil {
		return nil, apiError("listing PodGroups to count them by queue", err, "")
	}
	return countPodGroups(podGroups.Items), nil
}

func newQueueGetCommand(e *env) (*cobra.Command, *queueNameFlag) {
	f := &queueNameFlag{}
	cmd := &cobra.Command{
		Use:   "get",
		Short: "Show a queue with its PodGroups counted by phase",
		Args:  noArgs("name the queue with -n/--name"),
		RunE: runE(func(ctx context.Context, _ *cobra.Command) error {
			if f.name == "" {
				return errors.New("queue name is required: pass -n/--name")
			}
			c, err := e.client()
			if err != nil {
				return err
			}
			queue := &schedulingv1beta1.Queue{}
			if err := c.Get(ctx, client.ObjectKey{Name: f.name}, queue); err != nil {
				return apiError("reading queue "+f.name, err, queueNotFound(f.name))
			}
			counts, err := e.podGroupCounts(ctx, c)
			if err != nil {
				return err
			}
			_, err = io.WriteString(e.Out, formatQueueList([]schedulingv1beta1.Queue{*queue}, counts))
			return err
		}),
	}
	cmd.Flags().StringVarP(&f.name, "name", "n", "", "the name of the queue")
	return cmd, f
}
