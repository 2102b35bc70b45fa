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

package gitops

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	"github.com/caldera-sh/caldera/internal/testing/argoworkflows"
	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/internal/testing/wrappers"
)

// volcanoModule is the Volcano release whose Argo Workflows example (volcanoArgoExample, in the
// module) the suite runs.
const (
	volcanoModule      = "volcano.sh/volcano@v1.15.0"
	volcanoArgoExample = "example/integrations/argo"
)

// workflowRun is the suite playing Argo Workflows for one Workflow: the controller's walk
// through steps and DAG tasks, and the executor's part for resource templates.
type workflowRun struct {
	wf        *wfv1.Workflow
	templates map[string]*wfv1.Template
	// finishPods makes the pods of each created job finish, for manifests written for a real
	// kubelet (no caldera.sh/simulate-run-time).
	finishPods bool
	// jobs are the vcjobs the run created, in order.
	jobs []*unstructured.Unstructured
}

// errStepFailed is wrapped by the error of a run whose step failed.
var errStepFailed = errors.New("step failed")

// readWorkflow decodes a Workflow file with Argo's Go types.
func readWorkflow(path string) *wfv1.Workflow {
	GinkgoHelper()
	raw, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	wf := &wfv1.Workflow{}
	Expect(yaml.UnmarshalStrict(raw, wf)).To(Succeed(), path)
	Expect(wf.Kind).To(Equal("Workflow"))
	return wf
}

// startWorkflow creates the Workflow object (so that its jobs have a real owner) in ns with the
// given workflow parameters.
func startWorkflow(ctx context.Context, wf *wfv1.Workflow, ns string, params map[string]string) *workflowRun {
	GinkgoHelper()
	for i, p := range wf.Spec.Arguments.Parameters {
		if v, ok := params[p.Name]; ok {
			wf.Spec.Arguments.Parameters[i].Value = wfv1.AnyStringPtr(v)
		}
	}
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("argoproj.io/v1alpha1")
	u.SetKind("Workflow")
	u.SetNamespace(ns)
	u.SetGenerateName(wf.GenerateName)
	u.SetName(wf.Name)
	Expect(fw.Client.Create(ctx, u)).To(Succeed())
	wf.Name, wf.Namespace, wf.UID = u.GetName(), ns, u.GetUID()
	run := &workflowRun{wf: wf, templates: map[string]*wfv1.Template{}}
	for i := range wf.Spec.Templates {
		run.templates[wf.Spec.Templates[i].Name] = &wf.Spec.Templates[i]
	}
	return run
}

// globals are the workflow-wide variables.
func (r *workflowRun) globals() map[string]string {
	vars := map[string]string{
		"workflow.name":      r.wf.Name,
		"workflow.namespace": r.wf.Namespace,
		"workflow.uid":       string(r.wf.UID),
	}
	for _, p := range r.wf.Spec.Arguments.Parameters {
		if p.Value != nil {
			vars["workflow.parameters."+p.Name] = p.Value.String()
		}
	}
	return vars
}

// runEntrypoint runs the workflow's entrypoint.
func (r *workflowRun) runEntrypoint(ctx context.Context) error {
	_, err := r.runTemplate(ctx, r.wf.Spec.Entrypoint, wfv1.Arguments{}, r.globals())
	return err
}

// runTemplate runs the template name with args and returns its output parameters.
func (r *workflowRun) runTemplate(ctx context.Context, name string, args wfv1.Arguments, scope map[string]string) (map[string]string, error) {
	tmpl, ok := r.templates[name]
	if !ok {
		return nil, fmt.Errorf("no template %q", name)
	}
	vars := r.globals()
	for _, in := range tmpl.Inputs.Parameters {
		value := ""
		if in.Value != nil {
			value = in.Value.String()
		}
		if a := args.GetParameterByName(in.Name); a != nil && a.Value != nil {
			v, err := argoworkflows.Substitute(a.Value.String(), scope)
			if err != nil {
				return nil, fmt.Errorf("argument %s of %s: %w", in.Name, name, err)
			}
			value = v
		} else if in.Value == nil {
			return nil, fmt.Errorf("template %s: input %s has no value", name, in.Name)
		}
		vars["inputs.parameters."+in.Name] = value
	}
	switch {
	case len(tmpl.Steps) > 0:
		return nil, r.runSteps(ctx, tmpl)
	case tmpl.DAG != nil:
		return nil, r.runDAG(ctx, tmpl)
	case tmpl.Resource != nil:
		var resolved wfv1.Template
		if err := argoworkflows.SubstituteTemplate(tmpl, vars, &resolved); err != nil {
			return nil, fmt.Errorf("template %s: %w", name, err)
		}
		return r.runResource(ctx, &resolved)
	}
	return nil, fmt.Errorf("template %s: only steps, dag and resource templates are run here", name)
}

// runSteps runs each group of parallel steps after the previous group (one after the other
// here: only the order matters to the outcome).
func (r *workflowRun) runSteps(ctx context.Context, tmpl *wfv1.Template) error {
	scope := r.globals()
	for _, group := range tmpl.Steps {
		for _, step := range group.Steps {
			outputs, err := r.runTemplate(ctx, step.Template, step.Arguments, scope)
			if err != nil {
				return fmt.Errorf("step %s: %w", step.Name, err)
			}
			for k, v := range outputs {
				scope["steps."+step.Name+".outputs.parameters."+k] = v
			}
		}
	}
	return nil
}

// runDAG runs the DAG's tasks in an order that respects their dependencies.
func (r *workflowRun) runDAG(ctx context.Context, tmpl *wfv1.Template) error {
	scope := r.globals()
	done := map[string]bool{}
	for len(done) < len(tmpl.DAG.Tasks) {
		progressed := false
		for _, task := range tmpl.DAG.Tasks {
			if done[task.Name] || !allDone(done, task.Dependencies) {
				continue
			}
			outputs, err := r.runTemplate(ctx, task.Template, task.Arguments, scope)
			if err != nil {
				return fmt.Errorf("task %s: %w", task.Name, err)
			}
			for k, v := range outputs {
				scope["tasks."+task.Name+".outputs.parameters."+k] = v
			}
			done[task.Name], progressed = true, true
		}
		if !progressed {
			return fmt.Errorf("the DAG's dependencies form a cycle")
		}
	}
	return nil
}

func allDone(done map[string]bool, deps []string) bool {
	for _, d := range deps {
		if !done[d] {
			return false
		}
	}
	return true
}

// runResource is the executor's part: create the manifest (with the workflow as owner when
// setOwnerReference is set), poll it until the failure condition or every success condition
// holds, then read the output parameters.
func (r *workflowRun) runResource(ctx context.Context, tmpl *wfv1.Template) (map[string]string, error) {
	res := tmpl.Resource
	if res.Action != "create" {
		return nil, fmt.Errorf("action %q: only create is run here", res.Action)
	}
	conditions, err := argoworkflows.ParseConditions(res.SuccessCondition, res.FailureCondition)
	if err != nil {
		return nil, err
	}
	obj := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(res.Manifest), &obj.Object); err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	if obj.GetNamespace() == "" {
		obj.SetNamespace(r.wf.Namespace)
	}
	if res.SetOwnerReference {
		obj.SetOwnerReferences(append(obj.GetOwnerReferences(), metav1.OwnerReference{
			APIVersion: "argoproj.io/v1alpha1", Kind: "Workflow", Name: r.wf.Name, UID: r.wf.UID,
			Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
		}))
	}
	if err := fw.Client.Create(ctx, obj); err != nil {
		return nil, fmt.Errorf("creating the manifest: %w", err)
	}
	r.jobs = append(r.jobs, obj)

	var failure error
	Eventually(func(g Gomega) {
		cur := &unstructured.Unstructured{}
		cur.SetGroupVersionKind(obj.GroupVersionKind())
		g.Expect(fw.Client.Get(ctx, client.ObjectKeyFromObject(obj), cur)).To(Succeed())
		if r.finishPods {
			finishPods(ctx, g, cur)
		}
		raw, err := json.Marshal(cur.Object)
		g.Expect(err).NotTo(HaveOccurred())
		ok, err := conditions.Evaluate(raw)
		if err != nil {
			failure = err
			return
		}
		g.Expect(ok).To(BeTrue(), "the success condition %q holds", res.SuccessCondition)
		obj = cur
	}, framework.LongTimeout, framework.Interval).Should(Succeed(), "%s %s", obj.GetKind(), obj.GetName())
	if failure != nil {
		return nil, fmt.Errorf("%w: %s %s: %w", errStepFailed, obj.GetKind(), obj.GetName(), failure)
	}

	outputs := map[string]string{}
	for _, p := range tmpl.Outputs.Parameters {
		if p.ValueFrom == nil || p.ValueFrom.JSONPath == "" {
			return nil, fmt.Errorf("output %s: only valueFrom.jsonPath is read here", p.Name)
		}
		v, err := argoworkflows.JSONPath(obj.Object, p.ValueFrom.JSONPath)
		if err != nil {
			return nil, err
		}
		outputs[p.Name] = v
	}
	return outputs, nil
}

// finishPods makes the running pods of the job finish with exit code 0 under KWOK, as the
// containers of a manifest written for a real kubelet (cowsay) would.
func finishPods(ctx context.Context, g Gomega, job *unstructured.Unstructured) {
	pods := &corev1.PodList{}
	g.Expect(fw.Client.List(ctx, pods, client.InNamespace(job.GetNamespace()),
		client.MatchingLabels{batchv1alpha1.JobNameKey: job.GetName()})).To(Succeed())
	for i := range pods.Items {
		pod := &pods.Items[i]
		if pod.Status.Phase != corev1.PodRunning || pod.Annotations[wrappers.SimulateRunTime] != "" {
			continue
		}
		patch := client.MergeFrom(pod.DeepCopy())
		if pod.Annotations == nil {
			pod.Annotations = map[string]string{}
		}
		pod.Annotations[wrappers.SimulateRunTime] = "0s"
		g.Expect(client.IgnoreNotFound(fw.Client.Patch(ctx, pod, patch))).To(Succeed())
	}
}

var _ = Describe("Argo Workflows resource templates over vcjobs", Label("e2e:gitops"), func() {
	var ns string

	BeforeEach(func() {
		ns = fw.SpecNamespace("argo")
	})

	samples := filepath.Join(framework.RepoRoot(), "samples", "argo-workflows")

	It("runs the steps sample to success, passing the first job's name to the second", func(ctx SpecContext) {
		run := startWorkflow(ctx, readWorkflow(filepath.Join(samples, "step.yaml")), ns, nil)
		Expect(run.runEntrypoint(ctx)).To(Succeed())
		Expect(run.jobs).To(HaveLen(2))
		Expect(run.jobs[1].GetAnnotations()).To(HaveKeyWithValue("example.com/after", run.jobs[0].GetName()))
		for _, job := range run.jobs {
			Expect(job.GetOwnerReferences()).To(ContainElement(HaveField("UID", run.wf.UID)))
		}
	})

	It("runs the DAG sample to success, and to failure when D's pods fail", func(ctx SpecContext) {
		good := startWorkflow(ctx, readWorkflow(filepath.Join(samples, "dag.yaml")), ns, nil)
		bad := startWorkflow(ctx, readWorkflow(filepath.Join(samples, "dag.yaml")), ns, map[string]string{"exit-code": "1"})
		errs := make(chan error, 2)
		for _, run := range []*workflowRun{good, bad} {
			go func() {
				defer GinkgoRecover()
				errs <- run.runEntrypoint(ctx)
			}()
		}
		results := []error{<-errs, <-errs}
		Expect(results).To(ContainElement(BeNil()), "the good DAG succeeds")
		Expect(results).To(ContainElement(MatchError(errStepFailed)), "the bad DAG fails")
		Expect(good.jobs).To(HaveLen(4))
		Expect(bad.jobs).To(HaveLen(4), "D ran")
		last := bad.jobs[3]
		failed := &batchv1alpha1.Job{}
		Expect(fw.Client.Get(ctx, client.ObjectKeyFromObject(last), failed)).To(Succeed())
		Expect(failed.Status.State.Phase).To(Equal(batchv1alpha1.Failed))
		Expect(failed.Status.RetryCount).To(Equal(int32(1)))
	})

	DescribeTable("runs Volcano's own Argo example unchanged",
		func(ctx SpecContext, file string) {
			dir := filepath.Join(moduleDir(volcanoModule), volcanoArgoExample)
			run := startWorkflow(ctx, readWorkflow(filepath.Join(dir, file)), ns, nil)
			run.finishPods = true
			Expect(run.runEntrypoint(ctx)).To(Succeed())
			Expect(run.jobs).NotTo(BeEmpty())
		},
		Entry("steps", "10-job-step.yaml"),
		Entry("DAG", "20-job-DAG.yaml"),
	)
})

// moduleDir downloads module (path@version) into the Go module cache, when it is not there yet,
// and returns its folder.
func moduleDir(module string) string {
	GinkgoHelper()
	out, err := exec.Command("go", "mod", "download", "-json", module).Output()
	Expect(err).NotTo(HaveOccurred(), "go mod download %s: %s", module, out)
	var info struct{ Dir, Error string }
	Expect(json.Unmarshal(out, &info)).To(Succeed())
	Expect(info.Error).To(BeEmpty())
	return info.Dir
}
