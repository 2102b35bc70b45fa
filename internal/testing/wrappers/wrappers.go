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

// Package wrappers builds test objects fluently: MakeJob("tf", ns).Task(...).Obj().
package wrappers

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	busv1alpha1 "github.com/caldera-sh/caldera/api/bus/v1alpha1"
	flowv1alpha1 "github.com/caldera-sh/caldera/api/flow/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
)

// Annotations the KWOK stages of config/kwok read on a pod.
const (
	// SimulateRunTime is how long a simulated pod runs before it finishes.
	SimulateRunTime = "caldera.sh/simulate-run-time"
	// SimulateExitCode is the exit code a simulated pod finishes with.
	SimulateExitCode = "caldera.sh/simulate-exit-code"
)

// JobWrapper builds a batch.volcano.sh Job.
type JobWrapper struct{ batchv1alpha1.Job }

// MakeJob starts a job with no tasks.
func MakeJob(name, namespace string) *JobWrapper {
	return &JobWrapper{batchv1alpha1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: batchv1alpha1.GroupVersion.String(), Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
	}}
}

// Obj returns the job.
func (w *JobWrapper) Obj() *batchv1alpha1.Job { return w.Job.DeepCopy() }

// Task adds a task of replicas pods running busybox with small requests.
func (w *JobWrapper) Task(name string, replicas int32) *JobWrapper {
	w.Spec.Tasks = append(w.Spec.Tasks, batchv1alpha1.TaskSpec{
		Name:     name,
		Replicas: replicas,
		Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{}},
			Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers: []corev1.Container{{
					Name:  name,
					Image: "busybox",
					Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
						corev1.ResourceCPU:    resource.MustParse("100m"),
						corev1.ResourceMemory: resource.MustParse("64Mi"),
					}},
				}},
			},
		},
	})
	return w
}

// UnnamedTask adds a task as Task does, but without a name (its container is named main): the
// job controller names it default<i>, i its position in spec.tasks, as Volcano does.
func (w *JobWrapper) UnnamedTask(replicas int32) *JobWrapper {
	w.Task("main", replicas)
	w.lastTask().Name = ""
	return w
}

func (w *JobWrapper) lastTask() *batchv1alpha1.TaskSpec { return &w.Spec.Tasks[len(w.Spec.Tasks)-1] }

// RunFor makes the last task's pods finish after d under KWOK, with exit code 0.
func (w *JobWrapper) RunFor(d time.Duration) *JobWrapper {
	w.lastTask().Template.Annotations[SimulateRunTime] = d.String()
	return w
}

// ExitCode makes the last task's pods finish with code under KWOK.
func (w *JobWrapper) ExitCode(code int) *JobWrapper {
	w.lastTask().Template.Annotations[SimulateExitCode] = itoa(code)
	return w
}

// Requests sets the requests of the last task's container.
func (w *JobWrapper) Requests(requests corev1.ResourceList) *JobWrapper {
	w.lastTask().Template.Spec.Containers[0].Resources.Requests = requests
	return w
}

// NodeSelector sets the node selector of the last task's pods.
func (w *JobWrapper) NodeSelector(selector map[string]string) *JobWrapper {
	w.lastTask().Template.Spec.NodeSelector = selector
	return w
}

// TaskMinAvailable sets the last task's minAvailable.
func (w *JobWrapper) TaskMinAvailable(n int32) *JobWrapper {
	w.lastTask().MinAvailable = ptr.To(n)
	return w
}

// TaskMaxRetry sets the last task's maxRetry.
func (w *JobWrapper) TaskMaxRetry(n int32) *JobWrapper {
	w.lastTask().MaxRetry = n
	return w
}

// TaskPolicy adds a policy to the last task.
func (w *JobWrapper) TaskPolicy(p batchv1alpha1.LifecyclePolicy) *JobWrapper {
	w.lastTask().Policies = append(w.lastTask().Policies, p)
	return w
}

// DependsOn makes the last task wait for tasks.
func (w *JobWrapper) DependsOn(tasks ...string) *JobWrapper {
	w.lastTask().DependsOn = &batchv1alpha1.DependsOn{Name: tasks}
	return w
}

// Policy adds a job-level policy.
func (w *JobWrapper) Policy(p batchv1alpha1.LifecyclePolicy) *JobWrapper {
	w.Spec.Policies = append(w.Spec.Policies, p)
	return w
}

// OnEvent is a policy taking action on event.
func OnEvent(event busv1alpha1.Event, action busv1alpha1.Action) batchv1alpha1.LifecyclePolicy {
	return batchv1alpha1.LifecyclePolicy{Event: event, Action: action}
}

// OnExitCode is a policy taking action on a pod failing with code.
func OnExitCode(code int32, action busv1alpha1.Action) batchv1alpha1.LifecyclePolicy {
	return batchv1alpha1.LifecyclePolicy{ExitCode: ptr.To(code), Action: action}
}

// When is a policy taking action when the CEL expression holds (on event, if given).
func When(expr string, event busv1alpha1.Event, action busv1alpha1.Action) batchv1alpha1.LifecyclePolicy {
	return batchv1alpha1.LifecyclePolicy{When: expr, Event: event, Action: action}
}

// Scheduler sets spec.schedulerName.
func (w *JobWrapper) Scheduler(name string) *JobWrapper {
	w.Spec.SchedulerName = name
	return w
}

// Queue sets spec.queue.
func (w *JobWrapper) Queue(name string) *JobWrapper {
	w.Spec.Queue = name
	return w
}

// MinAvailable sets spec.minAvailable.
func (w *JobWrapper) MinAvailable(n int32) *JobWrapper {
	w.Spec.MinAvailable = n
	return w
}

// MinSuccess sets spec.minSuccess.
func (w *JobWrapper) MinSuccess(n int32) *JobWrapper {
	w.Spec.MinSuccess = ptr.To(n)
	return w
}

// MaxRetry sets spec.maxRetry.
func (w *JobWrapper) MaxRetry(n int32) *JobWrapper {
	w.Spec.MaxRetry = n
	return w
}

// Suspend sets spec.suspend.
func (w *JobWrapper) Suspend(b bool) *JobWrapper {
	w.Spec.Suspend = ptr.To(b)
	return w
}

// Plugin enables a job plugin with arguments.
func (w *JobWrapper) Plugin(name string, args ...string) *JobWrapper {
	if w.Spec.Plugins == nil {
		w.Spec.Plugins = map[string][]string{}
	}
	// A plugin without arguments is an empty list, as in a manifest (`svc: []`): a null value
	// would be dropped by the API server.
	w.Spec.Plugins[name] = append([]string{}, args...)
	return w
}

// Annotation sets an annotation on the job.
func (w *JobWrapper) Annotation(key, value string) *JobWrapper {
	if w.Annotations == nil {
		w.Annotations = map[string]string{}
	}
	w.Annotations[key] = value
	return w
}

// Label sets a label on the job.
func (w *JobWrapper) Label(key, value string) *JobWrapper {
	if w.Labels == nil {
		w.Labels = map[string]string{}
	}
	w.Labels[key] = value
	return w
}

// ClaimVolume mounts at mountPath, in every container, a claim the job creates: storage of the
// given size from storageClassName, ReadWriteOnce.
func (w *JobWrapper) ClaimVolume(mountPath, storageClassName, size string) *JobWrapper {
	w.Spec.Volumes = append(w.Spec.Volumes, batchv1alpha1.VolumeSpec{
		MountPath: mountPath,
		VolumeClaim: &corev1.PersistentVolumeClaimSpec{
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			StorageClassName: ptr.To(storageClassName),
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceStorage: resource.MustParse(size),
			}},
		},
	})
	return w
}

// EphemeralVolume mounts at mountPath, in the last task's containers, a generic ephemeral volume:
// each pod gets its own claim (made by kube-controller-manager) of the given size from
// storageClassName, ReadWriteOnce.
func (w *JobWrapper) EphemeralVolume(name, mountPath, storageClassName, size string) *JobWrapper {
	spec := &w.lastTask().Template.Spec
	spec.Volumes = append(spec.Volumes, corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{
		VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			StorageClassName: ptr.To(storageClassName),
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceStorage: resource.MustParse(size),
			}},
		}},
	}}})
	for i := range spec.Containers {
		spec.Containers[i].VolumeMounts = append(spec.Containers[i].VolumeMounts, corev1.VolumeMount{Name: name, MountPath: mountPath})
	}
	return w
}

// ClaimedVolume mounts at mountPath, in the last task's containers, the existing claim named
// claim.
func (w *JobWrapper) ClaimedVolume(name, mountPath, claim string) *JobWrapper {
	spec := &w.lastTask().Template.Spec
	spec.Volumes = append(spec.Volumes, corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{
		PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim},
	}})
	for i := range spec.Containers {
		spec.Containers[i].VolumeMounts = append(spec.Containers[i].VolumeMounts, corev1.VolumeMount{Name: name, MountPath: mountPath})
	}
	return w
}

// TTL sets spec.ttlSecondsAfterFinished.
func (w *JobWrapper) TTL(seconds int32) *JobWrapper {
	w.Spec.TTLSecondsAfterFinished = ptr.To(seconds)
	return w
}

// QueueWrapper builds a Queue.
type QueueWrapper struct{ schedulingv1beta1.Queue }

// MakeQueue starts a queue of weight 1.
func MakeQueue(name string) *QueueWrapper {
	return &QueueWrapper{schedulingv1beta1.Queue{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       schedulingv1beta1.QueueSpec{Weight: 1},
	}}
}

// Weight sets spec.weight.
func (w *QueueWrapper) Weight(n int32) *QueueWrapper {
	w.Spec.Weight = n
	return w
}

// Capability sets spec.capability.
func (w *QueueWrapper) Capability(list corev1.ResourceList) *QueueWrapper {
	w.Spec.Capability = list
	return w
}

// Obj returns the queue.
func (w *QueueWrapper) Obj() *schedulingv1beta1.Queue { return w.Queue.DeepCopy() }

// Command is a Command with action targeting job.
func Command(name string, job *batchv1alpha1.Job, action busv1alpha1.Action) *busv1alpha1.Command {
	return &busv1alpha1.Command{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: job.Namespace},
		Action:     string(action),
		TargetObject: &metav1.OwnerReference{
			APIVersion: batchv1alpha1.GroupVersion.String(), Kind: "Job", Name: job.Name, UID: job.UID,
		},
	}
}

func itoa(n int) string {
	return resource.NewQuantity(int64(n), resource.DecimalSI).String()
}

// CronJobWrapper builds a batch.volcano.sh CronJob.
type CronJobWrapper struct{ batchv1alpha1.CronJob }

// MakeCronJob starts a CronJob on schedule that runs job (its spec, labels and annotations),
// with the schema's defaults: Allow, not suspended, history limits 3 and 1.
func MakeCronJob(name, namespace, schedule string, job *batchv1alpha1.Job) *CronJobWrapper {
	return &CronJobWrapper{batchv1alpha1.CronJob{
		TypeMeta:   metav1.TypeMeta{APIVersion: batchv1alpha1.GroupVersion.String(), Kind: "CronJob"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: batchv1alpha1.CronJobSpec{
			Schedule:                   schedule,
			ConcurrencyPolicy:          batchv1alpha1.AllowConcurrent,
			Suspend:                    ptr.To(false),
			SuccessfulJobsHistoryLimit: ptr.To[int32](3),
			FailedJobsHistoryLimit:     ptr.To[int32](1),
			JobTemplate: batchv1alpha1.JobTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: job.Labels, Annotations: job.Annotations},
				Spec:       *job.Spec.DeepCopy(),
			},
		},
	}}
}

// Obj returns the CronJob.
func (w *CronJobWrapper) Obj() *batchv1alpha1.CronJob { return w.CronJob.DeepCopy() }

// Concurrency sets the concurrency policy.
func (w *CronJobWrapper) Concurrency(p batchv1alpha1.ConcurrencyPolicy) *CronJobWrapper {
	w.Spec.ConcurrencyPolicy = p
	return w
}

// Suspend sets spec.suspend.
func (w *CronJobWrapper) Suspend(b bool) *CronJobWrapper {
	w.Spec.Suspend = ptr.To(b)
	return w
}

// StartingDeadline sets startingDeadlineSeconds.
func (w *CronJobWrapper) StartingDeadline(seconds int64) *CronJobWrapper {
	w.Spec.StartingDeadlineSeconds = ptr.To(seconds)
	return w
}

// History sets the successful and failed history limits.
func (w *CronJobWrapper) History(successful, failed int32) *CronJobWrapper {
	w.Spec.SuccessfulJobsHistoryLimit = ptr.To(successful)
	w.Spec.FailedJobsHistoryLimit = ptr.To(failed)
	return w
}

// TimeZone sets spec.timeZone.
func (w *CronJobWrapper) TimeZone(tz string) *CronJobWrapper {
	w.Spec.TimeZone = ptr.To(tz)
	return w
}

// JobTemplate returns a flow.volcano.sh JobTemplate with the spec of the job w builds, named
// as the job.
func (w *JobWrapper) JobTemplate() *flowv1alpha1.JobTemplate {
	return &flowv1alpha1.JobTemplate{
		TypeMeta:   metav1.TypeMeta{APIVersion: flowv1alpha1.GroupVersion.String(), Kind: "JobTemplate"},
		ObjectMeta: metav1.ObjectMeta{Name: w.Name, Namespace: w.Namespace},
		Spec:       *w.Spec.DeepCopy(),
	}
}

// JobFlowWrapper builds a flow.volcano.sh JobFlow.
type JobFlowWrapper struct{ flowv1alpha1.JobFlow }

// MakeJobFlow starts a JobFlow with no flows.
func MakeJobFlow(name, namespace string) *JobFlowWrapper {
	return &JobFlowWrapper{flowv1alpha1.JobFlow{
		TypeMeta:   metav1.TypeMeta{APIVersion: flowv1alpha1.GroupVersion.String(), Kind: "JobFlow"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
	}}
}

// Flow adds a flow of the template name, depending on targets.
func (w *JobFlowWrapper) Flow(name string, targets ...string) *JobFlowWrapper {
	f := flowv1alpha1.Flow{Name: name}
	if len(targets) > 0 {
		f.DependsOn = &flowv1alpha1.DependsOn{Targets: targets}
	}
	w.Spec.Flows = append(w.Spec.Flows, f)
	return w
}

// When sets the last flow's dependsOn.when.
func (w *JobFlowWrapper) When(expr string) *JobFlowWrapper {
	w.Spec.Flows[len(w.Spec.Flows)-1].DependsOn.When = expr
	return w
}

// Patch sets the last flow's patch.jobSpec (JSON).
func (w *JobFlowWrapper) Patch(jobSpec string) *JobFlowWrapper {
	w.Spec.Flows[len(w.Spec.Flows)-1].Patch = &flowv1alpha1.Patch{JobSpec: &runtime.RawExtension{Raw: []byte(jobSpec)}}
	return w
}

// RetainPolicy sets jobRetainPolicy.
func (w *JobFlowWrapper) RetainPolicy(p flowv1alpha1.RetainPolicy) *JobFlowWrapper {
	w.Spec.JobRetainPolicy = p
	return w
}

// Obj returns the JobFlow.
func (w *JobFlowWrapper) Obj() *flowv1alpha1.JobFlow { return w.JobFlow.DeepCopy() }
