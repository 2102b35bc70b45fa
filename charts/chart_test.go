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

// Package charts_test checks that both ways of installing Caldera, the Helm chart
// (charts/caldera) and the kustomize configuration (config/default), lint cleanly and render a
// hardened manager: non-root with a read-only root filesystem and no capabilities, probes,
// resources, a PodDisruptionBudget and spreading for its replicas, and least-privilege RBAC. It
// runs helm and kubectl from the folder of control-plane binaries; it needs no API server.
package charts_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/caldera-sh/caldera/internal/testing/framework"
	"github.com/caldera-sh/caldera/internal/testing/install"
)

const (
	release   = "caldera"
	namespace = "caldera-system"
	// fullname is the chart's name of the release's objects: the release name, as it says
	// caldera (another release name gets "-caldera" appended).
	fullname = release
	// leaseName is the manager's LeaderElectionID (cmd/manager).
	leaseName = "caldera-manager.volcano.sh"
)

var (
	assetsOnce sync.Once
	assetsDir  string
	assetsErr  error
)

// assets is the folder of helm and kubectl (built by hack/kube-binaries.sh once per process).
func assets(t *testing.T) string {
	t.Helper()
	assetsOnce.Do(func() { assetsDir, assetsErr = framework.Assets() })
	if assetsErr != nil {
		t.Fatal(assetsErr)
	}
	return assetsDir
}

// The hardened security contexts both installs give the manager.
var (
	wantPodSecurity = &corev1.PodSecurityContext{
		RunAsNonRoot:   ptr.To(true),
		RunAsUser:      ptr.To[int64](65532),
		RunAsGroup:     ptr.To[int64](65532),
		FSGroup:        ptr.To[int64](65532),
		SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
	}
	wantContainerSecurity = &corev1.SecurityContext{
		RunAsNonRoot:             ptr.To(true),
		RunAsUser:                ptr.To[int64](65532),
		ReadOnlyRootFilesystem:   ptr.To(true),
		AllowPrivilegeEscalation: ptr.To(false),
		Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		SeccompProfile:           &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
	}
)

func TestHelmVersion(t *testing.T) {
	out, err := install.Helm(t.Context(), assets(t), "version", "--short")
	if err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(framework.RepoRoot(), "hack", "tools", "helm", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*helm\.sh/helm/v\d+ (v\S+)`).FindSubmatch(gomod)
	if m == nil {
		t.Fatal("hack/tools/helm/go.mod requires no helm.sh/helm module")
	}
	if got, want := strings.TrimSpace(string(out)), string(m[1]); !strings.HasPrefix(got, want) {
		t.Errorf("helm version --short = %q, want %s (stamped by hack/kube-binaries.sh)", got, want)
	}
}

// valueSets are the value combinations the chart must lint and render with.
var valueSets = []struct {
	name   string
	values map[string]any
}{
	{"defaults", nil},
	{"webhook off", map[string]any{"webhook": map[string]any{"enabled": false}}},
	{"cert-manager", map[string]any{"webhook": map[string]any{"certManager": true}}},
	{"service monitor", map[string]any{"metrics": map[string]any{"serviceMonitor": map[string]any{
		"enabled": true, "interval": "30s", "labels": map[string]any{"release": "prometheus"},
	}}}},
	{"one replica", map[string]any{"replicas": 1, "leaderElection": false}},
	{"metrics off", map[string]any{"metrics": map[string]any{"enabled": false}}},
	{"metrics over plain HTTP", map[string]any{"metrics": map[string]any{"secure": false, "port": 8080, "serviceMonitor": map[string]any{"enabled": true}}}},
	{"minAvailable", map[string]any{"replicas": 3, "podDisruptionBudget": map[string]any{"maxUnavailable": nil, "minAvailable": "50%"}}},
	{"image digest", map[string]any{"image": map[string]any{
		"repository": "registry.example.com/caldera", "tag": "v9.9.9",
		"digest": "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
	}}},
	{"scheduling", map[string]any{
		"priorityClassName": "system-cluster-critical",
		"nodeSelector":      map[string]any{"kubernetes.io/os": "linux"},
		"tolerations":       []any{map[string]any{"key": "dedicated", "operator": "Equal", "value": "control", "effect": "NoSchedule"}},
		"affinity": map[string]any{"nodeAffinity": map[string]any{"requiredDuringSchedulingIgnoredDuringExecution": map[string]any{
			"nodeSelectorTerms": []any{map[string]any{"matchExpressions": []any{map[string]any{"key": "node-role.kubernetes.io/control-plane", "operator": "Exists"}}}},
		}}},
		"podLabels":      map[string]any{"team": "batch"},
		"podAnnotations": map[string]any{"example.com/note": "hello"},
		"extraArgs":      []any{"--zap-log-level=debug"},
		"extraEnv": []any{
			map[string]any{"name": "KUBE_FEATURE_WatchListClient", "value": "false"},
			map[string]any{"name": "NODE_NAME", "valueFrom": map[string]any{"fieldRef": map[string]any{"fieldPath": "spec.nodeName"}}},
		},
	}},
	{"existing service account", map[string]any{"serviceAccount": map[string]any{"create": false, "name": "batch-operator"}}},
	{"admission policies off", map[string]any{"admissionPolicies": map[string]any{"enabled": false}}},
}

func TestChartLint(t *testing.T) {
	a := assets(t)
	for _, tc := range valueSets {
		t.Run(tc.name, func(t *testing.T) {
			out, err := install.LintChart(t.Context(), a, tc.values)
			if err != nil {
				t.Fatal(err)
			}
			if s := string(out); strings.Contains(s, "[WARNING]") || strings.Contains(s, "[ERROR]") || !strings.Contains(s, "0 chart(s) failed") {
				t.Errorf("helm lint --strict is not clean:\n%s", s)
			}
		})
	}
}

func TestChartRejectsBadValues(t *testing.T) {
	a := assets(t)
	for _, tc := range []struct {
		name   string
		values map[string]any
		want   string // in helm's error
	}{
		{"misspelt key", map[string]any{"replica": 3}, "replica"},
		{"replicas without leader election", map[string]any{"replicas": 2, "leaderElection": false}, "leaderElection"},
		{"bad pull policy", map[string]any{"image": map[string]any{"pullPolicy": "Sometimes"}}, "pullPolicy"},
		{"bad failure policy", map[string]any{"webhook": map[string]any{"failurePolicy": "Maybe"}}, "failurePolicy"},
		{"bad digest", map[string]any{"image": map[string]any{"digest": "latest"}}, "digest"},
		{"replicas as string", map[string]any{"replicas": "2"}, "replicas"},
		{"extra arg without dashes", map[string]any{"extraArgs": []any{"leader-elect"}}, "extraArgs"},
		{"extra env overriding the chart's", map[string]any{"extraEnv": []any{map[string]any{"name": "POD_NAMESPACE", "value": "elsewhere"}}}, "extraEnv"},
		{"extra env with value and valueFrom", map[string]any{"extraEnv": []any{map[string]any{"name": "A", "value": "1", "valueFrom": map[string]any{}}}}, "extraEnv"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := install.TemplateChart(t.Context(), a, release, namespace, tc.values)
			if err == nil {
				t.Fatalf("helm template accepted %v", tc.values)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("helm template's error does not name %q:\n%v", tc.want, err)
			}
		})
	}
}

// chartDefaults reads what the chart's image defaults to: values.yaml's image.repository and
// Chart.yaml's appVersion (written by the release tooling).
func chartDefaults(t *testing.T) (repository, appVersion string) {
	t.Helper()
	var values struct {
		Image struct{ Repository string } `json:"image"`
	}
	var chart struct {
		AppVersion string `json:"appVersion"`
	}
	for file, into := range map[string]any{"values.yaml": &values, "Chart.yaml": &chart} {
		data, err := os.ReadFile(filepath.Join(install.ChartDir(), file))
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal(data, into); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
	}
	return values.Image.Repository, chart.AppVersion
}

func TestChartTemplate(t *testing.T) {
	a := assets(t)
	repository, appVersion := chartDefaults(t)
	for _, tc := range valueSets {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := install.RenderChart(t.Context(), a, release, namespace, tc.values)
			if err != nil {
				t.Fatal(err)
			}
			r := index(t, objs)
			v := values(tc.values)
			sa := fullname
			if !v.boolean(true, "serviceAccount", "create") {
				sa = v.str("", "serviceAccount", "name")
			}
			replicas := int32(v.num(2, "replicas"))
			webhookCert := v.boolean(true, "webhook", "enabled") && !v.boolean(false, "webhook", "certManager")
			checkHardened(t, r, hardening{namespace: namespace, serviceAccount: sa, replicas: replicas, pdb: replicas > 1, webhookCert: webhookCert})

			if got := len(r.kind("CustomResourceDefinition")); got != 8 {
				t.Errorf("%d CRDs, want 8", got)
			}
			if v.boolean(true, "admissionPolicies", "enabled") {
				checkPolicies(t, r, fullname+"-")
			} else if got := len(r.kind("ValidatingAdmissionPolicy")) + len(r.kind("ValidatingAdmissionPolicyBinding")); got != 0 {
				t.Errorf("%d admission policies and bindings with admissionPolicies.enabled=false, want none", got)
			}
			if got, want := len(r.kind("ServiceAccount")) == 1, v.boolean(true, "serviceAccount", "create"); got != want {
				t.Errorf("ServiceAccount rendered: %t, want %t", got, want)
			}
			d := r.deployment(t)
			c := d.Spec.Template.Spec.Containers[0]
			args := c.Args

			// The image is the values' image.
			wantImage := repository + ":" + appVersion
			if v.str("", "image", "digest") != "" {
				wantImage = v.str("", "image", "repository") + "@" + v.str("", "image", "digest")
			} else if tag := v.str("", "image", "tag"); tag != "" {
				wantImage = v.str(repository, "image", "repository") + ":" + tag
			}
			if c.Image != wantImage {
				t.Errorf("image %q, want %q", c.Image, wantImage)
			}
			if c.ImagePullPolicy != corev1.PullIfNotPresent {
				t.Errorf("imagePullPolicy %q, want IfNotPresent", c.ImagePullPolicy)
			}

			// Leader election follows the values.
			if want := "--leader-elect=" + map[bool]string{true: "true", false: "false"}[v.boolean(true, "leaderElection")]; !slices.Contains(args, want) {
				t.Errorf("args %q lack %s", args, want)
			}

			// The webhook and its certificate.
			webhook := v.boolean(true, "webhook", "enabled")
			certManager := v.boolean(false, "webhook", "certManager")
			if got := len(r.kind("ValidatingWebhookConfiguration")) == 1; got != webhook {
				t.Errorf("ValidatingWebhookConfiguration rendered: %t, want %t", got, webhook)
			}
			if got := r.get("Service", fullname+"-webhook") != nil; got != webhook {
				t.Errorf("webhook Service rendered: %t, want %t", got, webhook)
			}
			if want := "--enable-webhook=" + map[bool]string{true: "true", false: "false"}[webhook]; !slices.Contains(args, want) {
				t.Errorf("args %q lack %s", args, want)
			}
			secretVolume := ""
			for _, vol := range d.Spec.Template.Spec.Volumes {
				if vol.Secret != nil {
					secretVolume = vol.Secret.SecretName
				}
			}
			if webhook != (secretVolume != "") {
				t.Errorf("webhook certificate volume %q with the webhook enabled: %t", secretVolume, webhook)
			}
			if webhook {
				if want := "--manage-webhook-certs=" + map[bool]string{true: "false", false: "true"}[certManager]; !slices.Contains(args, want) {
					t.Errorf("args %q lack %s", args, want)
				}
				if want := "--webhook-secret-name=" + secretVolume; !slices.Contains(args, want) {
					t.Errorf("args %q lack %s (the mounted Secret)", args, want)
				}
				vwc := r.get("ValidatingWebhookConfiguration", fullname)
				if vwc == nil {
					t.Fatalf("no ValidatingWebhookConfiguration %s (the manager's --webhook-config-name)", fullname)
				}
				hooks, _, _ := unstructured.NestedSlice(vwc.Object, "webhooks")
				if len(hooks) != 4 {
					t.Fatalf("ValidatingWebhookConfiguration has %d webhooks, want 4 (jobs, jobflows, queues and hypernodes)", len(hooks))
				}
				for _, hook := range hooks {
					svc, _, _ := unstructured.NestedStringMap(hook.(map[string]any), "clientConfig", "service")
					if svc["name"] != fullname+"-webhook" || svc["namespace"] != namespace || !slices.Contains(args, "--webhook-service-name="+svc["name"]) {
						t.Errorf("the webhook calls Service %s/%s; want %s/%s-webhook, named by --webhook-service-name", svc["namespace"], svc["name"], namespace, fullname)
					}
				}
				inject := vwc.GetAnnotations()["cert-manager.io/inject-ca-from"]
				if certManager != (inject != "") {
					t.Errorf("cert-manager.io/inject-ca-from %q with certManager %t", inject, certManager)
				}
			}
			cert := r.get("Certificate", fullname+"-webhook")
			if got := cert != nil && r.get("Issuer", fullname+"-selfsigned") != nil; got != (webhook && certManager) {
				t.Errorf("cert-manager Certificate and Issuer rendered: %t, want %t", got, webhook && certManager)
			}
			if cert != nil {
				if name, _, _ := unstructured.NestedString(cert.Object, "spec", "secretName"); name != secretVolume {
					t.Errorf("Certificate's secretName %q, want the mounted Secret %q", name, secretVolume)
				}
			}

			// Metrics and the ServiceMonitor.
			metrics := v.boolean(true, "metrics", "enabled")
			metricsSvc := r.get("Service", fullname+"-metrics")
			if got := metricsSvc != nil; got != metrics {
				t.Errorf("metrics Service rendered: %t, want %t", got, metrics)
			}
			secure := v.boolean(true, "metrics", "secure")
			wantMetricsArgs := []string{"--metrics-bind-address=0"}
			if metrics {
				wantMetricsArgs = []string{
					fmt.Sprintf("--metrics-bind-address=:%d", v.num(8443, "metrics", "port")),
					fmt.Sprintf("--metrics-secure=%t", secure),
				}
			}
			for _, arg := range wantMetricsArgs {
				if !slices.Contains(args, arg) {
					t.Errorf("args %q lack %s", args, arg)
				}
			}
			if got, want := r.get("ClusterRole", fullname+"-metrics-reader") != nil, metrics && secure; got != want {
				t.Errorf("ClusterRole %s-metrics-reader rendered: %t, want %t", fullname, got, want)
			}
			monitor := r.get("ServiceMonitor", fullname)
			if got, want := monitor != nil, metrics && v.boolean(false, "metrics", "serviceMonitor", "enabled"); got != want {
				t.Errorf("ServiceMonitor rendered: %t, want %t", got, want)
			}
			if monitor != nil {
				checkServiceMonitor(t, monitor, metricsSvc, v)
			}

			// Scheduling and pod metadata values reach the pod.
			pod := d.Spec.Template
			if got, want := pod.Spec.PriorityClassName, v.str("", "priorityClassName"); got != want {
				t.Errorf("priorityClassName %q, want %q", got, want)
			}
			if diff := cmp.Diff(stringMap(v.get("nodeSelector")), pod.Spec.NodeSelector); diff != "" {
				t.Errorf("nodeSelector (-values +rendered):\n%s", diff)
			}
			if got, want := len(pod.Spec.Tolerations), len(v.list("tolerations")); got != want {
				t.Errorf("%d tolerations, want %d", got, want)
			}
			if got, want := pod.Spec.Affinity != nil, v.get("affinity") != nil; got != want {
				t.Errorf("affinity set: %t, want %t", got, want)
			}
			for k, val := range stringMap(v.get("podLabels")) {
				if pod.Labels[k] != val {
					t.Errorf("pod label %s=%q, want %q", k, pod.Labels[k], val)
				}
			}
			for k, val := range stringMap(v.get("podAnnotations")) {
				if pod.Annotations[k] != val {
					t.Errorf("pod annotation %s=%q, want %q", k, pod.Annotations[k], val)
				}
			}
			for _, arg := range v.list("extraArgs") {
				if !slices.Contains(args, arg.(string)) {
					t.Errorf("args %q lack the extra %s", args, arg)
				}
			}
			wantEnv := []corev1.EnvVar{
				{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
				{Name: "POD_NAMESPACE", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}},
			}
			for _, e := range v.list("extraEnv") {
				var env corev1.EnvVar
				if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(e.(map[string]any), &env, true); err != nil {
					t.Fatalf("extraEnv %v: %v", e, err)
				}
				wantEnv = append(wantEnv, env)
			}
			if diff := cmp.Diff(wantEnv, c.Env); diff != "" {
				t.Errorf("manager env (-want +got):\n%s", diff)
			}

			// The PodDisruptionBudget's budget follows the values.
			if pdb := r.get("PodDisruptionBudget", fullname); pdb != nil {
				spec := convert[policyv1.PodDisruptionBudget](t, pdb).Spec
				want := policyv1.PodDisruptionBudgetSpec{MaxUnavailable: ptr.To(intstr.FromInt32(1))}
				if v.has("podDisruptionBudget", "minAvailable") {
					want = policyv1.PodDisruptionBudgetSpec{MinAvailable: ptr.To(intstr.Parse(v.str("", "podDisruptionBudget", "minAvailable")))}
				}
				spec.Selector = nil
				if diff := cmp.Diff(want, spec); diff != "" {
					t.Errorf("PodDisruptionBudget (-want +got):\n%s", diff)
				}
			}

			// The chart's ClusterRole and Roles are config/rbac's.
			roles := []struct{ kind, name, file string }{
				{"ClusterRole", fullname, "role.yaml"},
				{"Role", fullname + "-leader-election", "leader_election_role.yaml"},
			}
			if webhookCert {
				roles = append(roles, struct{ kind, name, file string }{"Role", fullname + "-webhook-cert", "webhook_cert_role.yaml"})
			}
			for _, role := range roles {
				obj := r.get(role.kind, role.name)
				if obj == nil {
					t.Errorf("no %s %s", role.kind, role.name)
					continue
				}
				if diff := cmp.Diff(configRules(t, role.file), rules(t, obj)); diff != "" {
					t.Errorf("%s %s differs from config/rbac/%s (run make manifests) (-config +chart):\n%s", role.kind, role.name, role.file, diff)
				}
			}
		})
	}
}

func checkServiceMonitor(t *testing.T, monitor, svc *unstructured.Unstructured, v values) {
	t.Helper()
	if monitor.GetAPIVersion() != "monitoring.coreos.com/v1" {
		t.Errorf("ServiceMonitor apiVersion %s", monitor.GetAPIVersion())
	}
	sel, _, _ := unstructured.NestedStringMap(monitor.Object, "spec", "selector", "matchLabels")
	if len(sel) == 0 || !labels.SelectorFromSet(sel).Matches(labels.Set(svc.GetLabels())) {
		t.Errorf("ServiceMonitor selector %v does not select the metrics Service (labels %v)", sel, svc.GetLabels())
	}
	endpoints, _, _ := unstructured.NestedSlice(monitor.Object, "spec", "endpoints")
	if len(endpoints) != 1 {
		t.Fatalf("ServiceMonitor endpoints %v, want one", endpoints)
	}
	ep := endpoints[0].(map[string]any)
	want := map[string]any{"port": "metrics", "path": "/metrics", "scheme": "http"}
	if v.boolean(true, "metrics", "secure") {
		want["scheme"] = "https"
		want["bearerTokenFile"] = "/var/run/secrets/kubernetes.io/serviceaccount/token"
		want["tlsConfig"] = map[string]any{"insecureSkipVerify": true}
	}
	if interval := v.str("", "metrics", "serviceMonitor", "interval"); interval != "" {
		want["interval"] = interval
	}
	if diff := cmp.Diff(want, ep); diff != "" {
		t.Errorf("ServiceMonitor endpoint (-want +got):\n%s", diff)
	}
	for k, val := range stringMap(v.get("metrics", "serviceMonitor", "labels")) {
		if monitor.GetLabels()[k] != val {
			t.Errorf("ServiceMonitor label %s=%q, want %q", k, monitor.GetLabels()[k], val)
		}
	}
}

func TestKustomize(t *testing.T) {
	objs, err := install.RenderKustomize(t.Context(), assets(t), install.KustomizeDir())
	if err != nil {
		t.Fatal(err)
	}
	r := index(t, objs)
	checkHardened(t, r, hardening{namespace: namespace, serviceAccount: "caldera-manager", replicas: 2, pdb: true, webhookCert: true})
	if got := len(r.kind("CustomResourceDefinition")); got != 8 {
		t.Errorf("%d CRDs, want 8", got)
	}
	checkPolicies(t, r, "caldera-")
	for _, role := range []struct{ kind, name, file string }{
		{"ClusterRole", "caldera-manager", "role.yaml"},
		{"Role", "caldera-leader-election", "leader_election_role.yaml"},
		{"Role", "caldera-webhook-cert", "webhook_cert_role.yaml"},
	} {
		obj := r.get(role.kind, role.name)
		if obj == nil {
			t.Errorf("no %s %s", role.kind, role.name)
			continue
		}
		if diff := cmp.Diff(configRules(t, role.file), rules(t, obj)); diff != "" {
			t.Errorf("%s %s differs from config/rbac/%s (-file +rendered):\n%s", role.kind, role.name, role.file, diff)
		}
	}
	// The manager's defaults name the webhook's objects as config/default does.
	for kind, name := range map[string]string{
		"Service":                        "caldera-webhook-service",
		"ValidatingWebhookConfiguration": "caldera-validating-webhook-configuration",
	} {
		if r.get(kind, name) == nil {
			t.Errorf("no %s %s (the manager's default name)", kind, name)
		}
	}
	d := r.deployment(t)
	// make manifests (hack/image/set-image.sh) keeps both installs on one image.
	repository, appVersion := chartDefaults(t)
	if got, want := d.Spec.Template.Spec.Containers[0].Image, repository+":"+appVersion; got != want {
		t.Errorf("image %q, want the chart's default %q", got, want)
	}
	for _, vol := range d.Spec.Template.Spec.Volumes {
		if vol.Secret != nil && vol.Secret.SecretName != "caldera-webhook-server-cert" {
			t.Errorf("webhook certificate Secret %q, want the manager's default caldera-webhook-server-cert", vol.Secret.SecretName)
		}
	}
}

// hardening is what checkHardened expects of one install.
type hardening struct {
	namespace      string
	serviceAccount string
	replicas       int32
	pdb            bool
	// webhookCert: the manager keeps the webhook's certificate Secret, with a Role of its own.
	webhookCert bool
}

// checkHardened checks the properties every install of Caldera has.
func checkHardened(t *testing.T, r *objects, want hardening) {
	t.Helper()
	d := r.deployment(t)
	pod := d.Spec.Template
	podLabels := labels.Set(pod.Labels)

	if got := ptr.Deref(d.Spec.Replicas, 1); got != want.replicas {
		t.Errorf("replicas %d, want %d", got, want.replicas)
	}
	if got := pod.Spec.ServiceAccountName; got != want.serviceAccount {
		t.Errorf("serviceAccountName %q, want %q", got, want.serviceAccount)
	}
	if diff := cmp.Diff(wantPodSecurity, pod.Spec.SecurityContext); diff != "" {
		t.Errorf("pod securityContext (-want +got):\n%s", diff)
	}
	if len(pod.Spec.Containers) != 1 || len(pod.Spec.InitContainers) != 0 {
		t.Fatalf("want one container, got %d (and %d init containers)", len(pod.Spec.Containers), len(pod.Spec.InitContainers))
	}
	c := pod.Spec.Containers[0]
	if c.Image == "" {
		t.Error("no image")
	}
	if diff := cmp.Diff(wantContainerSecurity, c.SecurityContext); diff != "" {
		t.Errorf("container securityContext (-want +got):\n%s", diff)
	}
	if want.replicas > 1 && !slices.Contains(c.Args, "--leader-elect") && !slices.Contains(c.Args, "--leader-elect=true") {
		t.Errorf("%d replicas without --leader-elect: %q", want.replicas, c.Args)
	}

	// Resources: requests for scheduling, a memory limit.
	for name, q := range map[string]bool{
		"requests.cpu":    !c.Resources.Requests.Cpu().IsZero(),
		"requests.memory": !c.Resources.Requests.Memory().IsZero(),
		"limits.memory":   !c.Resources.Limits.Memory().IsZero(),
	} {
		if !q {
			t.Errorf("resources.%s is not set", name)
		}
	}

	// Probes on the health endpoint (--health-probe-bind-address=:8081).
	if !slices.Contains(c.Args, "--health-probe-bind-address=:8081") {
		t.Errorf("args %q lack --health-probe-bind-address=:8081", c.Args)
	}
	for name, probe := range map[string]struct {
		probe *corev1.Probe
		path  string
	}{"liveness": {c.LivenessProbe, "/healthz"}, "readiness": {c.ReadinessProbe, "/readyz"}} {
		if probe.probe == nil || probe.probe.HTTPGet == nil {
			t.Errorf("no HTTP %s probe", name)
			continue
		}
		get := probe.probe.HTTPGet
		if get.Path != probe.path || containerPort(c, get.Port) != 8081 {
			t.Errorf("%s probe GET %s on port %s (container port %d), want %s on 8081", name, get.Path, get.Port.String(), containerPort(c, get.Port), probe.path)
		}
	}

	// The root filesystem is read-only: every writable mount is an emptyDir, and /tmp is one.
	volumes := map[string]corev1.Volume{}
	for _, v := range pod.Spec.Volumes {
		volumes[v.Name] = v
	}
	tmp := false
	for _, m := range c.VolumeMounts {
		v, ok := volumes[m.Name]
		if !ok {
			t.Errorf("volumeMount %s names no volume", m.Name)
			continue
		}
		if !m.ReadOnly && v.EmptyDir == nil {
			t.Errorf("volumeMount %s at %s is writable and not an emptyDir", m.Name, m.MountPath)
		}
		if m.MountPath == "/tmp" && v.EmptyDir != nil && !m.ReadOnly {
			tmp = true
		}
		if v.HostPath != nil {
			t.Errorf("volume %s is a hostPath", v.Name)
		}
	}
	if !tmp {
		t.Error("no writable emptyDir at /tmp")
	}
	if pod.Spec.HostNetwork || pod.Spec.HostPID || pod.Spec.HostIPC {
		t.Error("the pod shares a host namespace")
	}

	// The replicas spread across nodes (softly), and a budget keeps one running.
	if want.replicas > 1 {
		spread := false
		for _, tsc := range pod.Spec.TopologySpreadConstraints {
			sel, err := metav1.LabelSelectorAsSelector(tsc.LabelSelector)
			if err != nil {
				t.Errorf("topologySpreadConstraint selector: %v", err)
				continue
			}
			if tsc.TopologyKey == corev1.LabelHostname && tsc.WhenUnsatisfiable == corev1.ScheduleAnyway && sel.Matches(podLabels) {
				spread = true
			}
		}
		if !spread {
			t.Errorf("no soft topologySpreadConstraint across %s that selects the manager pods: %+v", corev1.LabelHostname, pod.Spec.TopologySpreadConstraints)
		}
	}
	pdbs := r.kind("PodDisruptionBudget")
	if got := len(pdbs) == 1; got != want.pdb {
		t.Errorf("PodDisruptionBudget rendered: %t, want %t", got, want.pdb)
	}
	for _, u := range pdbs {
		pdb := convert[policyv1.PodDisruptionBudget](t, &u)
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil || !sel.Matches(podLabels) {
			t.Errorf("PodDisruptionBudget selector %v does not select the manager pods (%v)", pdb.Spec.Selector, err)
		}
		if (pdb.Spec.MaxUnavailable == nil) == (pdb.Spec.MinAvailable == nil) {
			t.Errorf("PodDisruptionBudget needs exactly one of maxUnavailable and minAvailable: %+v", pdb.Spec)
		}
	}

	// Services select the manager pods and target ports it has.
	for _, u := range r.kind("Service") {
		svc := convert[corev1.Service](t, &u)
		if !labels.SelectorFromSet(svc.Spec.Selector).Matches(podLabels) || len(svc.Spec.Selector) == 0 {
			t.Errorf("Service %s selects %v, not the manager pods %v", svc.Name, svc.Spec.Selector, pod.Labels)
		}
		for _, p := range svc.Spec.Ports {
			if containerPort(c, p.TargetPort) == 0 {
				t.Errorf("Service %s port %s targets %s, which the container does not expose", svc.Name, p.Name, p.TargetPort.String())
			}
		}
	}

	// Namespaced objects are in the install's namespace.
	for _, u := range r.all {
		switch u.GetKind() {
		case "CustomResourceDefinition", "ClusterRole", "ClusterRoleBinding", "ValidatingWebhookConfiguration", "Namespace",
			"ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding":
			if u.GetNamespace() != "" {
				t.Errorf("cluster-scoped %s %s has namespace %q", u.GetKind(), u.GetName(), u.GetNamespace())
			}
		default:
			if u.GetNamespace() != want.namespace {
				t.Errorf("%s %s is in namespace %q, want %q", u.GetKind(), u.GetName(), u.GetNamespace(), want.namespace)
			}
		}
	}

	checkRBAC(t, r, want)
}

// checkRBAC checks least privilege and that the manager's ServiceAccount has its roles.
func checkRBAC(t *testing.T, r *objects, want hardening) {
	t.Helper()
	dangerous := []string{"*", "escalate", "bind", "impersonate"}
	secretVerbs := []string{"create", "delete", "get", "list", "patch", "update", "watch"}
	leases := map[string][]string{}
	for _, kind := range []string{"ClusterRole", "Role"} {
		for _, u := range r.kind(kind) {
			if isMetricsReader(&u) {
				// The one role with a non-resource URL: reading /metrics, for Prometheus.
				want := []rbacv1.PolicyRule{{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}}}
				if diff := cmp.Diff(want, rules(t, &u)); diff != "" {
					t.Errorf("ClusterRole %s rules (-want +got):\n%s", u.GetName(), diff)
				}
				continue
			}
			for i, rule := range rules(t, &u) {
				where := fmt.Sprintf("%s %s rule %d", kind, u.GetName(), i)
				for _, field := range [][]string{rule.Verbs, rule.APIGroups, rule.Resources, rule.ResourceNames} {
					if slices.Contains(field, "*") {
						t.Errorf("%s has a wildcard: %+v", where, rule)
					}
				}
				for _, verb := range rule.Verbs {
					if slices.Contains(dangerous, verb) {
						t.Errorf("%s grants %s: %+v", where, verb, rule)
					}
				}
				if len(rule.NonResourceURLs) > 0 {
					t.Errorf("%s grants non-resource URLs: %+v", where, rule)
				}
				for _, res := range rule.Resources {
					if strings.Contains(res, "/") && !slices.Contains([]string{"pods/binding", "pods/eviction", "pods/status", "jobs/status", "cronjobs/status", "podgroups/status", "queues/status", "jobflows/status", "jobtemplates/status", "hypernodes/status",
						// The scheduler writes the allocations of ResourceClaims, as kube-scheduler does.
						"resourceclaims/status", "resourceclaims/binding"}, res) {
						t.Errorf("%s grants the subresource %s", where, res)
					}
					if res == "secrets" && slices.Contains(rule.APIGroups, "") {
						for _, verb := range rule.Verbs {
							if !slices.Contains(secretVerbs, verb) {
								t.Errorf("%s grants %s on secrets", where, verb)
							}
						}
					}
					if res == "leases" {
						if kind != "Role" {
							t.Errorf("%s: leases are granted cluster-wide", where)
						}
						for _, verb := range rule.Verbs {
							leases[verb] = append(leases[verb], rule.ResourceNames...)
						}
					}
				}
			}
		}
	}
	// Leader election: create the Lease, read and renew the manager's own.
	if diff := cmp.Diff(map[string][]string{"create": nil, "get": {leaseName}, "update": {leaseName}}, leases); diff != "" {
		t.Errorf("leases (-want +got):\n%s", diff)
	}

	// Every role is bound to the manager's ServiceAccount, and the manager's bindings name roles
	// that exist.
	bound := map[string]bool{}
	for _, kind := range []string{"ClusterRoleBinding", "RoleBinding"} {
		for _, u := range r.kind(kind) {
			var ref rbacv1.RoleRef
			var subjects []rbacv1.Subject
			if kind == "ClusterRoleBinding" {
				b := convert[rbacv1.ClusterRoleBinding](t, &u)
				ref, subjects = b.RoleRef, b.Subjects
			} else {
				b := convert[rbacv1.RoleBinding](t, &u)
				ref, subjects = b.RoleRef, b.Subjects
			}
			wantSubjects := []rbacv1.Subject{{Kind: "ServiceAccount", Name: want.serviceAccount, Namespace: want.namespace}}
			if diff := cmp.Diff(wantSubjects, subjects); diff != "" {
				t.Errorf("%s %s subjects (-want +got):\n%s", kind, u.GetName(), diff)
			}
			if role := r.get(ref.Kind, ref.Name); role == nil {
				t.Errorf("%s %s binds the missing %s %s", kind, u.GetName(), ref.Kind, ref.Name)
			} else if isMetricsReader(role) {
				t.Errorf("%s %s binds %s to the manager, which only serves /metrics", kind, u.GetName(), ref.Name)
			}
			bound[ref.Kind+"/"+ref.Name] = true
		}
	}
	for _, kind := range []string{"ClusterRole", "Role"} {
		roles := slices.DeleteFunc(r.kind(kind), func(u unstructured.Unstructured) bool { return isMetricsReader(&u) })
		wantRoles := 1
		if kind == "Role" && want.webhookCert {
			wantRoles = 2 // leader election, and the webhook certificate's Secret
		}
		if len(roles) != wantRoles {
			t.Errorf("%d %ss, want %d", len(roles), kind, wantRoles)
		}
		for _, u := range roles {
			if !bound[kind+"/"+u.GetName()] {
				t.Errorf("%s %s is bound to nothing", kind, u.GetName())
			}
		}
	}
}

// isMetricsReader reports whether u is the ClusterRole that lets Prometheus read /metrics,
// shipped beside the manager's roles and not bound to the manager.
func isMetricsReader(u *unstructured.Unstructured) bool {
	return u.GetKind() == "ClusterRole" && strings.HasSuffix(u.GetName(), "metrics-reader")
}

// checkPolicies checks that an install has the ValidatingAdmissionPolicies of config/policy,
// their names prefixed with prefix and their specs unchanged, each bound by a binding that
// names it and denies.
func checkPolicies(t *testing.T, r *objects, prefix string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(framework.PolicyDir(), "queue_deletion.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range strings.Split(string(data), "\n---\n") {
		want := map[string]any{}
		if err := yaml.Unmarshal([]byte(doc), &want); err != nil {
			t.Fatal(err)
		}
		kind := want["kind"].(string)
		name := prefix + want["metadata"].(map[string]any)["name"].(string)
		got := r.get(kind, name)
		if got == nil {
			t.Errorf("no %s %s", kind, name)
			continue
		}
		wantSpec := want["spec"].(map[string]any)
		if kind == "ValidatingAdmissionPolicyBinding" {
			wantSpec["policyName"] = prefix + wantSpec["policyName"].(string)
			if r.get("ValidatingAdmissionPolicy", wantSpec["policyName"].(string)) == nil {
				t.Errorf("%s %s binds the missing policy %s", kind, name, wantSpec["policyName"])
			}
		}
		if diff := cmp.Diff(wantSpec, got.Object["spec"]); diff != "" {
			t.Errorf("%s %s differs from config/policy (-file +rendered):\n%s", kind, name, diff)
		}
	}
}

// objects indexes rendered objects.
type objects struct {
	all []unstructured.Unstructured
}

func index(t *testing.T, objs []unstructured.Unstructured) *objects {
	t.Helper()
	seen := map[string]bool{}
	for _, u := range objs {
		key := u.GetKind() + "/" + u.GetNamespace() + "/" + u.GetName()
		if seen[key] {
			t.Errorf("%s is rendered twice", key)
		}
		seen[key] = true
	}
	return &objects{all: objs}
}

func (r *objects) kind(kind string) []unstructured.Unstructured {
	var out []unstructured.Unstructured
	for _, u := range r.all {
		if u.GetKind() == kind {
			out = append(out, u)
		}
	}
	return out
}

func (r *objects) get(kind, name string) *unstructured.Unstructured {
	for i := range r.all {
		if r.all[i].GetKind() == kind && r.all[i].GetName() == name {
			return &r.all[i]
		}
	}
	return nil
}

func (r *objects) deployment(t *testing.T) *appsv1.Deployment {
	t.Helper()
	ds := r.kind("Deployment")
	if len(ds) != 1 {
		t.Fatalf("%d Deployments, want 1", len(ds))
	}
	return convert[appsv1.Deployment](t, &ds[0])
}

func convert[T any](t *testing.T, u *unstructured.Unstructured) *T {
	t.Helper()
	out := new(T)
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(u.Object, out, true); err != nil {
		t.Fatalf("%s %s: %v", u.GetKind(), u.GetName(), err)
	}
	return out
}

func rules(t *testing.T, u *unstructured.Unstructured) []rbacv1.PolicyRule {
	t.Helper()
	if u.GetKind() == "ClusterRole" {
		return convert[rbacv1.ClusterRole](t, u).Rules
	}
	return convert[rbacv1.Role](t, u).Rules
}

// configRules are the rules of config/rbac/file.
func configRules(t *testing.T, file string) []rbacv1.PolicyRule {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(framework.RepoRoot(), "config", "rbac", file))
	if err != nil {
		t.Fatal(err)
	}
	objs, err := install.Decode(data)
	if err != nil || len(objs) != 1 {
		t.Fatalf("config/rbac/%s: %d objects, %v", file, len(objs), err)
	}
	return rules(t, &objs[0])
}

// containerPort resolves a probe's or Service's port (a number or a name) to the container port;
// 0 when the container has no such port.
func containerPort(c corev1.Container, port intstr.IntOrString) int32 {
	for _, p := range c.Ports {
		if (port.Type == intstr.String && p.Name == port.StrVal) || (port.Type == intstr.Int && p.ContainerPort == port.IntVal) {
			return p.ContainerPort
		}
	}
	if port.Type == intstr.Int {
		return port.IntVal // a probe may name a port the container does not list
	}
	return 0
}

// values reads a test's chart values, falling back to the chart's defaults given by the caller.
type values map[string]any

func (v values) get(path ...string) any {
	var cur any = map[string]any(v)
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		if cur, ok = m[p]; !ok {
			return nil
		}
	}
	return cur
}

func (v values) has(path ...string) bool { return v.get(path...) != nil }

func (v values) boolean(def bool, path ...string) bool {
	if b, ok := v.get(path...).(bool); ok {
		return b
	}
	return def
}

func (v values) str(def string, path ...string) string {
	if s, ok := v.get(path...).(string); ok {
		return s
	}
	return def
}

func (v values) num(def int, path ...string) int {
	if n, ok := v.get(path...).(int); ok {
		return n
	}
	return def
}

func (v values) list(path ...string) []any {
	l, _ := v.get(path...).([]any)
	return l
}

func stringMap(x any) map[string]string {
	m, ok := x.(map[string]any)
	if !ok {
		return nil
	}
	out := map[string]string{}
	for k, v := range m {
		out[k] = v.(string)
	}
	return out
}
