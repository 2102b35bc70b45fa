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

package framework

import (
	"context"
	"errors"
	"fmt"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// ServiceAccountConfig returns a config that reaches the API server as the ServiceAccount
// namespace/name, with a token from the TokenRequest API valid for expiration: the identity a pod
// of that ServiceAccount gets from its projected token, so that whatever runs with it has exactly
// the rights RBAC gives the ServiceAccount.
func (f *Framework) ServiceAccountConfig(ctx context.Context, namespace, name string, expiration time.Duration) (*rest.Config, error) {
	if f.Config == nil {
		return nil, errors.New("the framework is not started: call Start first")
	}
	cs, err := kubernetes.NewForConfig(f.Config)
	if err != nil {
		return nil, fmt.Errorf("creating a clientset: %w", err)
	}
	seconds := int64(expiration / time.Second)
	tr, err := cs.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, name, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &seconds},
	}, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("requesting a token for ServiceAccount %s/%s: %w", namespace, name, err)
	}
	return &rest.Config{
		Host:            f.Config.Host,
		TLSClientConfig: rest.TLSClientConfig{CAData: f.Config.CAData, ServerName: f.Config.ServerName},
		BearerToken:     tr.Status.Token,
		QPS:             f.Config.QPS,
		Burst:           f.Config.Burst,
	}, nil
}
