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

// Package plugins holds the job plugins named in a Job's spec.plugins: env, svc, ssh,
// tensorflow, pytorch, mpi, ray and hcclrank. A plugin changes each pod before it is created (OnPodCreate) and
// says which objects the job needs beside its pods (Objects): a ConfigMap of host lists, a
// headless Service, a NetworkPolicy, a Secret of ssh keys.
//
// Everything here is pure: a plugin reads the job and the pod it is given and makes no API call;
// the job controller creates, updates and deletes the objects. The one exception to determinism is
// the ssh key pair, generated once from crypto/rand and then kept in the job's Secret.
//
// A plugin's arguments are parsed with the flag package when the plugin is built. An unknown
// plugin, an unknown or malformed argument, or an argument that names a task the job does not
// have, is an *Error naming the plugin and the argument, so the controller can report it in a
// condition.
package plugins

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	"github.com/caldera-sh/caldera/internal/job/naming"
	jobspec "github.com/caldera-sh/caldera/internal/job/spec"
)

// Plugin names, as written in a Job's spec.plugins.
const (
	// EnvPluginName is the env plugin: VK_TASK_INDEX and VC_TASK_INDEX in every container.
	EnvPluginName = "env"
	// SvcPluginName is the svc plugin: headless Service, host list ConfigMap, NetworkPolicy.
	SvcPluginName = naming.SvcPluginName
	// SSHPluginName is the ssh plugin: a key pair and ssh config in a Secret mounted in every container.
	SSHPluginName = naming.SSHPluginName
	// TensorflowPluginName is the tensorflow plugin: TF_CONFIG.
	TensorflowPluginName = "tensorflow"
	// PytorchPluginName is the pytorch plugin: MASTER_ADDR, MASTER_PORT, WORLD_SIZE, RANK.
	PytorchPluginName = "pytorch"
	// MPIPluginName is the mpi plugin: MPI_HOST on the master.
	MPIPluginName = "mpi"
)

// Plugin is one job plugin, built for one job with its arguments.
type Plugin interface {
	// Name is the plugin's name as written in spec.plugins.
	Name() string
	// OnPodCreate changes a pod of the job before it is created. The pod carries the job's
	// labels and annotations (task name and index) already. Calling it twice on the same pod
	// leaves the pod as one call does.
	OnPodCreate(pod *corev1.Pod, job *batchv1alpha1.Job) error
	// Objects returns the objects the job needs for this plugin, as they should be now, each
	// with the job as controller owner. existing holds the objects of the job found in the
	// cluster, for the plugins that keep state in them (the ssh key pair).
	Objects(job *batchv1alpha1.Job, existing Existing) (Objects, error)
}

// Objects are the objects beside its pods that a job's plugins want.
type Objects struct {
	// ConfigMaps are the wanted ConfigMaps.
	ConfigMaps []*corev1.ConfigMap
	// Services are the wanted Services.
	Services []*corev1.Service
	// NetworkPolicies are the wanted NetworkPolicies.
	NetworkPolicies []*networkingv1.NetworkPolicy
	// Secrets are the wanted Secrets.
	Secrets []*corev1.Secret
}

// Append adds the objects of o to the objects of all.
func (all *Objects) Append(o Objects) {
	all.ConfigMaps = append(all.ConfigMaps, o.ConfigMaps...)
	all.Services = append(all.Services, o.Services...)
	all.NetworkPolicies = append(all.NetworkPolicies, o.NetworkPolicies...)
	all.Secrets = append(all.Secrets, o.Secrets...)
}

// Existing holds objects of a job found in the cluster.
type Existing struct {
	// Secrets are the job's Secrets, by name.
	Secrets map[string]*corev1.Secret
}

// Error is a plugin that cannot be built or applied because of the job's spec: an unknown
// plugin, a bad argument, or a pod the plugin cannot serve. It names the plugin and, when one is
// at fault, the argument.
type Error struct {
	// Plugin is the name of the plugin.
	Plugin string
	// Argument is the argument at fault, as written in spec.plugins, or empty.
	Argument string
	// Message says what is wrong and how to fix it.
	Message string

	// unknown is set when the argument is not one of the plugin's flags; at is its index in the
	// arguments.
	unknown bool
	at      int
}

// Error returns the message with the plugin and the argument.
func (e *Error) Error() string {
	if e.Argument != "" {
		return fmt.Sprintf("spec.plugins.%s: argument %q: %s", e.Plugin, e.Argument, e.Message)
	}
	return fmt.Sprintf("spec.plugins.%s: %s", e.Plugin, e.Message)
}

// builder builds a plugin for a job from its arguments.
type builder func(job *batchv1alpha1.Job, args []string) (Plugin, error)

// builders are the known plugins.
var builders = map[string]builder{
	EnvPluginName:        newEnv,
	SvcPluginName:        newSvc,
	SSHPluginName:        newSSH,
	TensorflowPluginName: newTensorflow,
	PytorchPluginName:    newPytorch,
	MPIPluginName:        newMPI,
	RayPluginName:        newRay,
	HCCLRankPluginName:   newHCCLRank,
}

// Known returns the names of the known plugins, sorted.
func Known() []string {
	return slices.Sorted(maps.Keys(builders))
}

// EffectivePlugins returns the plugins that run for a job: those of spec.plugins with their
// arguments, plus the plugins they imply with no arguments (svc for tensorflow, pytorch and
// mpi and ray; ssh for mpi) when the spec does not name them (jobspec.WithImpliedPlugins, the rule
// the lifecycle's EffectiveSpec uses too). The spec itself is never changed.
func EffectivePlugins(spec map[string][]string) map[string][]string {
	return jobspec.WithImpliedPlugins(spec)
}

// New builds the named plugin for a job with its arguments. As Volcano's plugins do, an
// argument that is not one of the plugin's flags ends the arguments: it and those after it are
// ignored (Volcano logs the parse error and runs the plugin with the flags before it), and each
// ignored argument is returned as a warning that names it and the plugin's flags, for the job's
// events. A bad value of a known flag is an error.
func New(name string, args []string, job *batchv1alpha1.Job) (Plugin, []string, error) {
	build, ok := builders[name]
	if !ok {
		return nil, nil, &Error{Plugin: name, Message: fmt.Sprintf(
			"unknown plugin; the known plugins are %s: remove it or correct its name", strings.Join(Known(), ", "))}
	}
	p, err := build(job, args)
	var e *Error
	if !errors.As(err, &e) || !e.unknown {
		return p, nil, err
	}
	warning := fmt.Sprintf("spec.plugins.%s: argument %q %s; it and the arguments after it (%d in all) are ignored, as Volcano ignores them",
		name, e.Argument, e.Message, len(args)-e.at)
	p, err = build(job, args[:e.at])
	return p, []string{warning}, err
}

// ForJob builds every plugin that runs for a job (EffectivePlugins of spec.plugins), sorted by
// name so that pods are changed in the same order every time, with the warnings of New. The
// error joins the errors of all plugins that cannot be built.
func ForJob(job *batchv1alpha1.Job) ([]Plugin, []string, error) {
	effective := EffectivePlugins(job.Spec.Plugins)
	names := slices.Sorted(maps.Keys(effective))
	plugins := make([]Plugin, 0, len(names))
	var errs []error
	var warnings []string
	for _, name := range names {
		p, w, err := New(name, effective[name], job)
		warnings = append(warnings, w...)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		plugins = append(plugins, p)
	}
	if len(errs) > 0 {
		return nil, warnings, errors.Join(errs...)
	}
	return plugins, warnings, nil
}

// DesiredObjects returns the objects all the given plugins want for a job.
func DesiredObjects(plugins []Plugin, job *batchv1alpha1.Job, existing Existing) (Objects, error) {
	var all Objects
	for _, p := range plugins {
		o, err := p.Objects(job, existing)
		if err != nil {
			return Objects{}, err
		}
		all.Append(o)
	}
	return all, nil
}

// flags is a plugin's flag set and the arguments it parses.
type flags struct {
	plugin string
	set    *flag.FlagSet
	args   []string
	// explicit holds the flags the arguments set.
	explicit map[string]bool
}

func newFlags(plugin string, args []string) *flags {
	set := flag.NewFlagSet(plugin, flag.ContinueOnError)
	set.SetOutput(io.Discard)
	set.Usage = func() {}
	return &flags{plugin: plugin, set: set, args: args, explicit: map[string]bool{}}
}

// parse parses the arguments; an error names the argument at fault.
func (f *flags) parse() error {
	if err := f.set.Parse(f.args); err != nil {
		e := &Error{Plugin: f.plugin, Argument: f.failedArg(err), Message: f.describe(err)}
		if strings.HasPrefix(err.Error(), "flag provided but not defined") {
			e.unknown, e.at = true, len(f.args)-len(f.set.Args())-1
		}
		return e
	}
	if rest := f.set.Args(); len(rest) > 0 {
		return &Error{Plugin: f.plugin, Argument: redact(rest[0]), Message: "is not a flag: write arguments as --name=value"}
	}
	f.set.Visit(func(fl *flag.Flag) { f.explicit[fl.Name] = true })
	return nil
}

// failedArg is the argument the flag set stopped at.
func (f *flags) failedArg(err error) string {
	if rest := f.set.Args(); strings.HasPrefix(err.Error(), "bad flag syntax") && len(rest) > 0 {
		// The flag set stops before a malformed flag.
		return redact(rest[0])
	}
	consumed := len(f.args) - len(f.set.Args())
	if consumed <= 0 || consumed > len(f.args) {
		return redact(strings.Join(f.args, " "))
	}
	arg := f.args[consumed-1]
	if !strings.HasPrefix(arg, "-") && consumed >= 2 {
		// A flag and its value given as two arguments.
		return f.args[consumed-2] + " " + redact(arg)
	}
	return redact(arg)
}

// maxShownValue is the longest argument value an error repeats; a longer one (a key, say) is
// described by its length only, so that no secret ends up in a job's conditions.
const maxShownValue = 64

// redact shortens an argument whose value is too long to repeat in an error.
func redact(arg string) string {
	name, value, found := strings.Cut(arg, "=")
	if !found {
		name, value = "", arg
	}
	if len(value) <= maxShownValue {
		return arg
	}
	shown := fmt.Sprintf("<%d characters>", len(value))
	if found {
		return name + "=" + shown
	}
	return shown
}

// describe turns a flag package error into a message that lists the plugin's flags, with long
// argument values left out.
func (f *flags) describe(err error) string {
	msg := err.Error()
	for _, arg := range f.args {
		_, value, _ := strings.Cut(arg, "=")
		for _, s := range []string{arg, value} {
			if len(s) > maxShownValue {
				placeholder := fmt.Sprintf("<%d characters>", len(s))
				msg = strings.ReplaceAll(msg, strconv.Quote(s), placeholder)
				msg = strings.ReplaceAll(msg, s, placeholder)
			}
		}
	}
	var known []string
	f.set.VisitAll(func(fl *flag.Flag) { known = append(known, "--"+fl.Name) })
	if len(known) == 0 {
		return msg + "; this plugin takes no arguments"
	}
	return msg + "; the plugin's arguments are " + strings.Join(known, ", ")
}

// arg is how a flag's value is written back in an error.
func (f *flags) arg(name string) string {
	if fl := f.set.Lookup(name); fl != nil {
		return "--" + name + "=" + fl.Value.String()
	}
	return "--" + name
}

// checkPort checks a port argument.
func (f *flags) checkPort(name string, port int) error {
	if port < 1 || port > 65535 {
		return &Error{Plugin: f.plugin, Argument: f.arg(name), Message: "must be a port number from 1 to 65535"}
	}
	return nil
}

// checkTasks checks that each named argument, which names a task, names one of the job's tasks.
// A task name left at its default may be absent (the plugin then does nothing for that role),
// unless the argument is required.
func (f *flags) checkTasks(job *batchv1alpha1.Job, names ...string) error {
	for _, name := range names {
		if err := f.checkTask(job, name, false); err != nil {
			return err
		}
	}
	return nil
}

// checkTask checks one argument naming a task; required refuses a missing task even when the
// argument is left at its default.
func (f *flags) checkTask(job *batchv1alpha1.Job, name string, required bool) error {
	task := f.set.Lookup(name).Value.String()
	if (!f.explicit[name] && !required) || findTask(job, task) != nil {
		return nil
	}
	return &Error{Plugin: f.plugin, Argument: f.arg(name), Message: fmt.Sprintf(
		"the job has no task %q; name one of its tasks (%s)", task, strings.Join(naming.TaskNames(job.Spec.Tasks), ", "))}
}

// findTask is the job's task whose effective name (naming.TaskName) is name, or nil.
func findTask(job *batchv1alpha1.Job, name string) *batchv1alpha1.TaskSpec {
	if i := naming.TaskIndex(job.Spec.Tasks, name); i >= 0 {
		return &job.Spec.Tasks[i]
	}
	return nil
}

// podTask returns the task (its effective name, naming.TaskName) and the index of a job's pod,
// from the annotations the pod is built with; the job must have that task.
func podTask(plugin string, pod *corev1.Pod, job *batchv1alpha1.Job) (string, int, error) {
	name, ok := naming.PodTaskName(pod)
	if !ok {
		return "", 0, &Error{Plugin: plugin, Message: fmt.Sprintf(
			"pod %q has no %s annotation; build the job's pods with their task", pod.Name, batchv1alpha1.TaskSpecKey)}
	}
	if findTask(job, name) == nil {
		return "", 0, &Error{Plugin: plugin, Message: fmt.Sprintf("pod %q belongs to task %q, which the job does not have", pod.Name, name)}
	}
	index, err := naming.PodIndex(pod)
	if err != nil {
		return "", 0, &Error{Plugin: plugin, Message: err.Error()}
	}
	return name, index, nil
}

// controllerRef is the owner reference that makes the job the controller of an object.
func controllerRef(job *batchv1alpha1.Job) metav1.OwnerReference {
	return *metav1.NewControllerRef(job, batchv1alpha1.GroupVersion.WithKind("Job"))
}

// objectMeta is the metadata of a plugin object of the job.
func objectMeta(job *batchv1alpha1.Job, name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Name:            name,
		Namespace:       job.Namespace,
		Labels:          ObjectLabels(job),
		OwnerReferences: []metav1.OwnerReference{controllerRef(job)},
	}
}

// ObjectLabels are the labels of every object a plugin makes for the job: the job's name and
// namespace under Volcano's pod label keys. The manager caches only the Secrets and ConfigMaps
// that carry JobNameKey.
func ObjectLabels(job *batchv1alpha1.Job) map[string]string {
	return map[string]string{
		batchv1alpha1.JobNameKey:      job.Name,
		batchv1alpha1.JobNamespaceKey: job.Namespace,
	}
}

// allContainers returns pointers to the pod's init containers and containers.
func allContainers(pod *corev1.Pod) []*corev1.Container {
	out := make([]*corev1.Container, 0, len(pod.Spec.InitContainers)+len(pod.Spec.Containers))
	for i := range pod.Spec.InitContainers {
		out = append(out, &pod.Spec.InitContainers[i])
	}
	for i := range pod.Spec.Containers {
		out = append(out, &pod.Spec.Containers[i])
	}
	return out
}

// containers returns pointers to the pod's (main) containers.
func containers(pod *corev1.Pod) []*corev1.Container {
	out := make([]*corev1.Container, 0, len(pod.Spec.Containers))
	for i := range pod.Spec.Containers {
		out = append(out, &pod.Spec.Containers[i])
	}
	return out
}

// setEnv sets environment variables of a container: a variable already there by that name is
// replaced in place, a new one is appended.
func setEnv(c *corev1.Container, vars ...corev1.EnvVar) {
	for _, v := range vars {
		replaced := false
		for i := range c.Env {
			if c.Env[i].Name == v.Name {
				c.Env[i] = v
				replaced = true
				break
			}
		}
		if !replaced {
			c.Env = append(c.Env, v)
		}
	}
}

// addVolume adds a volume to a pod; the same volume already there is kept, another volume of
// that name is an error.
func addVolume(plugin string, pod *corev1.Pod, vol corev1.Volume) error {
	for i := range pod.Spec.Volumes {
		if pod.Spec.Volumes[i].Name != vol.Name {
			continue
		}
		if equality.Semantic.DeepEqual(pod.Spec.Volumes[i], vol) {
			return nil
		}
		return &Error{Plugin: plugin, Message: fmt.Sprintf(
			"the pod template already has a volume named %q; rename that volume in the task's template", vol.Name)}
	}
	pod.Spec.Volumes = append(pod.Spec.Volumes, vol)
	return nil
}

// addMount mounts a volume in a container; the same mount already there is kept, another mount
// at that path is an error.
func addMount(plugin string, c *corev1.Container, vm corev1.VolumeMount) error {
	for i := range c.VolumeMounts {
		if c.VolumeMounts[i].MountPath != vm.MountPath {
			continue
		}
		if equality.Semantic.DeepEqual(c.VolumeMounts[i], vm) {
			return nil
		}
		return &Error{Plugin: plugin, Message: fmt.Sprintf(
			"container %q already mounts volume %q at %s; remove that mount from the task's template", c.Name, c.VolumeMounts[i].Name, vm.MountPath)}
	}
	c.VolumeMounts = append(c.VolumeMounts, vm)
	return nil
}

// addPort opens a port on a container unless it has that port number already.
func addPort(c *corev1.Container, name string, port int) {
	for _, p := range c.Ports {
		if int(p.ContainerPort) == port {
			return
		}
	}
	c.Ports = append(c.Ports, corev1.ContainerPort{Name: name, ContainerPort: int32(port)})
}

func itoa(i int) string { return strconv.Itoa(i) }
