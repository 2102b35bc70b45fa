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
	"bufio"
	"encoding/json"
	"fmt"
	"os"
)

// auditPolicy records every write at level Metadata (who, what, the response code) and nothing
// else: reads and watches would drown the writes.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: Metadata
  verbs: ["create", "update", "patch", "delete", "deletecollection"]
- level: None
`

// writeAuditPolicy writes the audit policy beside the audit log and returns its path.
func (f *Framework) writeAuditPolicy() (string, error) {
	path := f.AuditLog + ".policy.yaml"
	if err := os.WriteFile(path, []byte(auditPolicy), 0o600); err != nil {
		return "", fmt.Errorf("writing the API server's audit policy: %w", err)
	}
	return path, nil
}

// AuditRecord is one write the API server recorded in the audit log (Framework.AuditLog).
type AuditRecord struct {
	Verb      string `json:"verb"`
	UserAgent string `json:"userAgent"`
	ObjectRef struct {
		Resource    string `json:"resource"`
		Subresource string `json:"subresource"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
		APIGroup    string `json:"apiGroup"`
	} `json:"objectRef"`
	ResponseStatus struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
	// RequestReceivedTimestamp is when the API server received the request (RFC 3339).
	RequestReceivedTimestamp string `json:"requestReceivedTimestamp"`
}

// ReadAuditLog reads the writes recorded in an audit log written with Framework.AuditLog.
func ReadAuditLog(path string) ([]AuditRecord, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading the audit log: %w", err)
	}
	defer func() { _ = file.Close() }()
	var records []AuditRecord
	scanner := bufio.NewScanner(file)
	scanner.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for scanner.Scan() {
		var r AuditRecord
		if err := json.Unmarshal(scanner.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("reading the audit log %s: %w", path, err)
		}
		records = append(records, r)
	}
	if err := scanner.Err(); err != nil {
		return nil, fmt.Errorf("reading the audit log %s: %w", path, err)
	}
	return records, nil
}
