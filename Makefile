# Caldera: the two commands a newcomer runs are `make dev` and `make test`.

SHELL := /usr/bin/env bash -o pipefail
.SHELLFLAGS := -ec
.DEFAULT_GOAL := help

LOCALBIN ?= $(CURDIR)/bin
CONTROLLER_GEN ?= $(LOCALBIN)/controller-gen
GOLANGCI_LINT ?= $(LOCALBIN)/golangci-lint

# KUBEBUILDER_ASSETS holds kube-apiserver, kube-controller-manager, etcd, kubectl, kwok, helm and
# the other parts of a cluster the e2e suites run (Karpenter, KubeRay, the MPI operator, each with
# its CRDs). An already-set value (for
# example from setup-envtest) is honoured; otherwise hack/kube-binaries.sh builds them from the
# Go module proxy into a cache keyed by version (minutes cold, seconds warm).
ASSETS = $(shell bash hack/kube-binaries.sh | tail -n 1)

# DEV_FLAGS are extra flags for make dev (go run ./hack/dev -h lists them).
DEV_FLAGS ?=
# GO_TEST_FLAGS are extra flags for go test, for example GO_TEST_FLAGS=-race.
GO_TEST_FLAGS ?=
# E2E_VOLCANO_FLAGS are extra flags for make e2e-volcano, for example -suites jobp,jobseq
# (go run ./hack/e2e-volcano -h lists them).
E2E_VOLCANO_FLAGS ?=
# TEST_TIMEOUT bounds one test binary.
TEST_TIMEOUT ?= 30m

# VERSION, GIT_COMMIT and BUILD_DATE are stamped into the binaries (internal/version) by LDFLAGS,
# which make build, make image and make docker-build share. SOURCE_DATE_EPOCH (the commit's time)
# is BUILD_DATE and every timestamp in the image, so one commit always gives the same image digest.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo 0.0.0-dev)
GIT_COMMIT ?= $(shell git rev-parse HEAD 2>/dev/null)
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
BUILD_DATE ?= $(shell date -u -d @$(SOURCE_DATE_EPOCH) +%Y-%m-%dT%H:%M:%SZ 2>/dev/null || date -u -r $(SOURCE_DATE_EPOCH) +%Y-%m-%dT%H:%M:%SZ)
VERSION_PKG := github.com/caldera-sh/caldera/internal/version
LDFLAGS ?= -s -w -X $(VERSION_PKG).Version=$(VERSION) -X $(VERSION_PKG).GitCommit=$(GIT_COMMIT) -X $(VERSION_PKG).BuildDate=$(BUILD_DATE)
# IMG is the manager's image, its one name: make image and make docker-build build it, make
# manifests writes it into config/manager (kustomize images:) and the chart (image.repository and
# appVersion). Its default is the image the chart already names, so regenerating changes nothing;
# to move to another image or release: make manifests image IMG=ghcr.io/caldera-sh/caldera:v0.2.0.
IMG ?= $(shell bash hack/image/set-image.sh --current)
# IMAGE_PLATFORMS are the os/arch platforms of make image.
IMAGE_PLATFORMS ?= linux/amd64,linux/arm64
# CONTAINER_TOOL builds the Dockerfile in make docker-build: docker or podman.
CONTAINER_TOOL ?= docker

##@ General

.PHONY: help
help: ## Show the targets.
	@awk 'BEGIN {FS = ":.*##"; printf "Usage: make <target>\n"} /^[a-zA-Z_0-9-]+:.*?##/ { printf "  %-18s %s\n", $$1, $$2 } /^##@/ { printf "\n%s\n", substr($$0, 5) } ' $(MAKEFILE_LIST)

##@ The two commands

.PHONY: dev
dev: manifests ## Bring up a local control plane with KWOK nodes and Caldera, apply samples/dev and show it run.
	go run ./hack/dev $(DEV_FLAGS)

.PHONY: test
test: verify vet ## Run every test CI runs: unit, integration (real kube-apiserver + etcd), e2e (KWOK) and the CI part of Volcano's e2e suites.
	export KUBEBUILDER_ASSETS="$(ASSETS)"; \
	go test $(GO_TEST_FLAGS) -timeout $(TEST_TIMEOUT) ./... && \
	go run ./hack/e2e-volcano -part ci

##@ Development

.PHONY: manifests
manifests: $(CONTROLLER_GEN) ## Generate the CRDs and RBAC from the Go markers.
	$(CONTROLLER_GEN) crd:generateEmbeddedObjectMeta=true paths="./api/..." output:crd:artifacts:config=config/crd/bases
	$(CONTROLLER_GEN) rbac:roleName=manager paths="./..." output:rbac:artifacts:config=config/rbac
	$(CONTROLLER_GEN) webhook paths="./internal/webhook/..." output:webhook:artifacts:config=config/webhook
	bash hack/update-helm.sh
	bash hack/image/set-image.sh "$(IMG)"

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

.PHONY: e2e-volcano
e2e-volcano: ## Run Volcano's own e2e suites (volcano.sh/volcano, pinned) against a local control plane with Caldera; prints a table.
	export KUBEBUILDER_ASSETS="$(ASSETS)"; \
	go run ./hack/e2e-volcano $(E2E_VOLCANO_FLAGS)

.PHONY: test-unit
test-unit: ## Run only the tests that need no control plane.
	go test $(GO_TEST_FLAGS) -short ./api/... ./internal/... ./scheduler/...

.PHONY: bench
bench: ## Measure the shipped manager binary: scheduling against the API server's ceiling, many small jobs end to end; prints one table per family (long).
	export KUBEBUILDER_ASSETS="$(ASSETS)"; \
	go run ./hack/bench $(BENCH_FLAGS)

.PHONY: bench-go
bench-go: ## Run the in-process Go benchmarks, for profiling one part (long).
	export KUBEBUILDER_ASSETS="$(ASSETS)"; \
	go test -run '^$$' -bench . -benchmem -timeout 60m ./...

.PHONY: kube-binaries
kube-binaries: ## Build kube-apiserver, kube-controller-manager, etcd, kubectl, kwok, helm, Karpenter, KubeRay and the MPI operator into the cache and print the folder.
	@bash hack/kube-binaries.sh

##@ Build

.PHONY: build
build: ## Build the manager, vcctl and kubectl-vc (vcctl as a kubectl plugin) into bin/, with VERSION stamped.
	go build -ldflags "$(LDFLAGS)" -o $(LOCALBIN)/manager ./cmd/manager
	go build -ldflags "$(LDFLAGS)" -o $(LOCALBIN)/vcctl ./cmd/vcctl
	go build -ldflags "$(LDFLAGS)" -o $(LOCALBIN)/kubectl-vc ./cmd/vcctl

.PHONY: kubectl-vc
kubectl-vc: ## Build vcctl as the kubectl plugin bin/kubectl-vc (`kubectl vc ...` once it is on PATH).
	go build -ldflags "$(LDFLAGS)" -o $(LOCALBIN)/kubectl-vc ./cmd/vcctl

.PHONY: image
image: ## Build the image IMG without a container daemon: OCI layout, docker tarballs and vcctl archives in bin/image/.
	go run ./hack/image -image "$(IMG)" -version "$(VERSION)" -commit "$(GIT_COMMIT)" \
		-source-date-epoch "$(SOURCE_DATE_EPOCH)" -platforms "$(IMAGE_PLATFORMS)" -ldflags "$(LDFLAGS)" \
		-out $(LOCALBIN)/image

.PHONY: krew-manifest
krew-manifest: ## Write bin/image/vc.yaml, the krew manifest of kubectl vc for release VERSION, from make image's SHA256SUMS.
	bash hack/krew/release.sh "$(VERSION)" $(LOCALBIN)/image

.PHONY: docker-build
docker-build: ## Build the image IMG from the Dockerfile with Docker or Podman (CONTAINER_TOOL).
	$(CONTAINER_TOOL) build --build-arg VERSION="$(VERSION)" --build-arg GIT_COMMIT="$(GIT_COMMIT)" \
		--build-arg BUILD_DATE="$(BUILD_DATE)" -t "$(IMG)" .

##@ Tools

$(CONTROLLER_GEN): hack/tools/codegen/go.mod
	cd hack/tools/codegen && go build -o $(CONTROLLER_GEN) sigs.k8s.io/controller-tools/cmd/controller-gen

$(GOLANGCI_LINT): hack/tools/lint/go.mod
	cd hack/tools/lint && go build -o $(GOLANGCI_LINT) github.com/golangci/golangci-lint/v2/cmd/golangci-lint
