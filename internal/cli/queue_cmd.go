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
	"k8s.io/apimachinery/pkg/types"
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
}

func newQueueOperateCommand(e *env) (*cobra.Command, *queueOperateFlags) {
	f := &queueOperateFlags{}
	cmd := &cobra.Command{
		Use:   "operate",
		Short: "Open or close a queue, or update its weight",
		Long: "Open or close a queue (-a open|close), which creates an OpenQueue or CloseQueue Command in\n" +
			"namespace default for the queue controller, or set its weight (-a update -w N), which\n" +
			"merge-patches spec.weight.",
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
				queue := &schedulingv1beta1.Queue{ObjectMeta: metav1.ObjectMeta{Name: f.name}}
				patch := client.RawPatch(types.MergePatchType, fmt.Appendf(nil, `{"spec":{"weight":%d}}`, op.weight))
				if err := c.Patch(ctx, queue, patch); err != nil {
					return apiError("updating the weight of queue "+f.name, err, queueNotFound(f.name))
				}
				_, err = fmt.Fprintf(e.Out, "update queue %s weight to %d successfully\n", f.name, op.weight)
				return err
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
	return cmd, f
}

func newQueueListCommand(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List queues with their PodGroups counted by phase",
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
			_, err = io.WriteString(e.Out, formatQueueList(queues.Items, counts))
			return err
		}),
	}
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
