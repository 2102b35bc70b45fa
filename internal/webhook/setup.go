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

package webhook

import (
	"context"
	"fmt"

	"github.com/open-policy-agent/cert-controller/pkg/rotator"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	ctrl "sigs.k8s.io/controller-runtime"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	flowv1alpha1 "github.com/caldera-sh/caldera/api/flow/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	topologyv1alpha1 "github.com/caldera-sh/caldera/api/topology/v1alpha1"
	celpolicy "github.com/caldera-sh/caldera/internal/job/policy"
	"github.com/caldera-sh/caldera/internal/jobflow"
)

// JobValidatePath is where the API server sends Job admission reviews.
const JobValidatePath = "/validate-batch-volcano-sh-v1alpha1-job"

// Options configure the webhook.
type Options struct {
	// ManageCerts has the manager make and rotate its own self-signed serving certificate (kept
	// in the Secret SecretName and written to CertDir) and inject the CA into the
	// ValidatingWebhookConfiguration ConfigName. Turn it off when cert-manager provides them.
	ManageCerts bool
	// CertDir is where the serving certificate is read from.
	CertDir string
	// Namespace, ServiceName, SecretName and ConfigName name the webhook's objects.
	Namespace   string
	ServiceName string
	SecretName  string
	ConfigName  string
	// DefaultSchedulerName is the schedulerName of pods whose job and template name none.
	DefaultSchedulerName string
	// Policies checks the job's lifecycle-policy CEL expressions; nil means the default CEL
	// engine's check.
	Policies func(job *batchv1alpha1.Job) field.ErrorList
}

// The certificate's Secret is in the manager's namespace: config/rbac/webhook_cert_role.yaml.
// +kubebuilder:rbac:groups=admissionregistration.k8s.io,resources=validatingwebhookconfigurations,verbs=get;list;watch;update;patch

// Setup registers the Job, JobFlow, Queue and HyperNode validators with the manager's webhook server. With ManageCerts, the
// validator is registered (and the server started) once the certificate is in place.
func Setup(ctx context.Context, mgr ctrl.Manager, opts Options) error {
	if opts.Policies == nil {
		engine, err := celpolicy.NewEngine()
		if err != nil {
			return fmt.Errorf("creating the CEL engine of lifecycle policies: %w", err)
		}
		opts.Policies = engine.ValidateJob
	}
	when, err := jobflow.NewWhenEngine()
	if err != nil {
		return err
	}
	register := func() error {
		if err := ctrl.NewWebhookManagedBy(mgr, &schedulingv1beta1.Queue{}).
			WithValidator(&QueueValidator{Reader: mgr.GetClient()}).
			WithValidatorCustomPath(QueueValidatePath).
			Complete(); err != nil {
			return err
		}
		if err := ctrl.NewWebhookManagedBy(mgr, &topologyv1alpha1.HyperNode{}).
			WithValidator(&HyperNodeValidator{}).
			WithValidatorCustomPath(HyperNodeValidatePath).
			Complete(); err != nil {
			return err
		}
		if err := ctrl.NewWebhookManagedBy(mgr, &flowv1alpha1.JobFlow{}).
			WithValidator(&JobFlowValidator{When: when}).
			WithValidatorCustomPath(JobFlowValidatePath).
			Complete(); err != nil {
			return err
		}
		return ctrl.NewWebhookManagedBy(mgr, &batchv1alpha1.Job{}).
			WithValidator(&JobValidator{
				Reader:               mgr.GetClient(),
				Client:               mgr.GetClient(),
				Policies:             opts.Policies,
				DefaultSchedulerName: opts.DefaultSchedulerName,
			}).
			WithValidatorCustomPath(JobValidatePath).
			Complete()
	}
	if !opts.ManageCerts {
		return register()
	}
	// The rotator fills in a Secret it expects to exist: make it empty when absent.
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: opts.Namespace, Name: opts.SecretName}}
	if err := mgr.GetClient().Create(ctx, secret); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating the webhook certificate Secret %s/%s: %w", opts.Namespace, opts.SecretName, err)
	}
	ready := make(chan struct{})
	err = rotator.AddRotator(mgr, &rotator.CertRotator{
		SecretKey:      types.NamespacedName{Namespace: opts.Namespace, Name: opts.SecretName},
		CertDir:        opts.CertDir,
		CAName:         "caldera-ca",
		CAOrganization: "caldera",
		DNSName:        fmt.Sprintf("%s.%s.svc", opts.ServiceName, opts.Namespace),
		ExtraDNSNames:  []string{fmt.Sprintf("%s.%s.svc.cluster.local", opts.ServiceName, opts.Namespace)},
		IsReady:        ready,
		Webhooks:       []rotator.WebhookInfo{{Name: opts.ConfigName, Type: rotator.Validating}},
		// Every replica serves the webhook, so every replica keeps its certificate current.
		RequireLeaderElection: false,
	})
	if err != nil {
		return fmt.Errorf("setting up the webhook certificate rotator: %w", err)
	}
	go func() {
		select {
		case <-ready:
		case <-ctx.Done():
			return
		}
		if err := register(); err != nil {
			ctrl.Log.WithName("webhook").Error(err, "Registering the job validator")
		}
	}()
	return nil
}
