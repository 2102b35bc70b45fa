# Caldera: the two commands a newcomer runs are `make dev` and `make test`.

SHELL := /usr/bin/env bash -o pipefail
.SHELLFLAGS := -ec
.DEFAULT_GOAL := help

LOCALBIN ?= $(CURDIR)/bin
CONTROLLER_GEN ?= $(LOCALBIN)/controller-gen
GOLANGCI_LINT ?= $(LOCALBIN)/golangci-lint

# KUBEBUILDER_ASSETS holds kube-apiserver, etcd, kubectl and kwok. An already-set value (for
# example from setup-envtest) is honoured; otherwise hack/kube-binaries.sh builds them from the
# Go module proxy into a cache keyed by version (minutes cold, seconds warm).
ASSETS = $(shell bash hack/kube-binaries.sh | tail -n 1)

# DEV_FLAGS are extra flags for make dev (go run ./hack/dev -h lists them).
DEV_FLAGS ?=
# GO_TEST_FLAGS are extra flags for go test, for example GO_TEST_FLAGS=-race.
GO_TEST_FLAGS ?=
# TEST_TIMEOUT bounds one test binary.
TEST_TIMEOUT ?= 30m

##@ General

.PHONY: help
help: ## Show the targets.
	@awk 'BEGIN {FS = ":.*##"; printf "Usage: make <target>\n"} /^[a-zA-Z_0-9-]+:.*?##/ { printf "  %-18s %s\n", $$1, $$2 } /^##@/ { printf "\n%s\n", substr($$0, 5) } ' $(MAKEFILE_LIST)

##@ The two commands

.PHONY: dev
dev: manifests ## Bring up a local control plane with KWOK nodes and Caldera, apply samples/dev and show it run.
	go run ./hack/dev $(DEV_FLAGS)

.PHONY: test
test: verify vet ## Run every test CI runs: unit, integration (real kube-apiserver + etcd) and e2e (KWOK).
	export KUBEBUILDER_ASSETS="$(ASSETS)"; \
	go test $(GO_TEST_FLAGS) -timeout $(TEST_TIMEOUT) ./...

##@ Development

.PHONY: manifests
manifests: $(CONTROLLER_GEN) ## Generate the CRDs and RBAC from the Go markers.
	$(CONTROLLER_GEN) crd:generateEmbeddedObjectMeta=true paths="./api/..." output:crd:artifacts:config=config/crd/bases
	$(CONTROLLER_GEN) rbac:roleName=manager paths="./..." output:rbac:artifacts:config=config/rbac
	$(CONTROLLER_GEN) webhook paths="./internal/webhook/..." output:webhook:artifacts:config=config/webhook
	bash hack/update-helm.sh

.PHONY: generate
generate: $(CONTROLLER_GEN) ## Generate the DeepCopy methods.
	$(CONTROLLER_GEN) object:headerFile="hack/boilerplate.go.txt" paths="./api/..."

.PHONY: fmt
fmt: ## Run gofmt.
	gofmt -l -w $$(git ls-files '*.go')

.PHONY: vet
vet: ## Run go vet.
	go vet ./...

.PHONY: lint
lint: $(GOLANGCI_LINT) ## Run golangci-lint.
	$(GOLANGCI_LINT) run ./...

.PHONY: verify
verify: ## Regenerate everything and fail if that changed a file (generated files out of date).
	@before=$$(bash hack/tree-hash.sh api config charts); \
	$(MAKE) --no-print-directory manifests generate; \
	after=$$(bash hack/tree-hash.sh api config charts); \
	if [ "$$before" != "$$after" ]; then echo "generated files were out of date; they are regenerated now: review and commit them"; exit 1; fi
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change: $$unformatted"; exit 1; fi

.PHONY: dev-smoke
dev-smoke: manifests ## make dev, exiting 0 once every sample job completes, 1 otherwise.
	go run ./hack/dev -exit-when-done -timeout 5m

.PHONY: test-e2e
test-e2e: ## Run only the e2e suite (kube-apiserver, etcd and KWOK).
	export KUBEBUILDER_ASSETS="$(ASSETS)"; \
	go test $(GO_TEST_FLAGS) -timeout $(TEST_TIMEOUT) ./e2e/...

.PHONY: test-unit
test-unit: ## Run only the tests that need no control plane.
	go test $(GO_TEST_FLAGS) -short ./api/... ./internal/... ./scheduler/...

.PHONY: bench
bench: ## Run the benchmarks (long).
	export KUBEBUILDER_ASSETS="$(ASSETS)"; \
	go test -run '^$$' -bench . -benchmem -timeout 60m ./...

.PHONY: kube-binaries
kube-binaries: ## Build kube-apiserver, etcd, kubectl and kwok into the cache and print the folder.
	@bash hack/kube-binaries.sh

##@ Build

.PHONY: build
build: ## Build the manager and vcctl into bin/.
	go build -o $(LOCALBIN)/manager ./cmd/manager
	go build -o $(LOCALBIN)/vcctl ./cmd/vcctl

##@ Tools

$(CONTROLLER_GEN): hack/tools/codegen/go.mod
	cd hack/tools/codegen && go build -o $(CONTROLLER_GEN) sigs.k8s.io/controller-tools/cmd/controller-gen

$(GOLANGCI_LINT): hack/tools/lint/go.mod
	cd hack/tools/lint && go build -o $(GOLANGCI_LINT) github.com/golangci/golangci-lint/v2/cmd/golangci-lint
