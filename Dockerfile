# syntax=docker/dockerfile:1
# The manager's image, for those with Docker or Podman: `make docker-build` (IMG, VERSION,
# GIT_COMMIT and BUILD_DATE as in the Makefile). `make image` builds the same image without a
# container daemon (hack/image): both hold a static /manager run as the nonroot user 65532.
#
#   docker buildx build --platform linux/amd64,linux/arm64 --build-arg VERSION=v0.2.0 -t IMAGE .

# The binary is cross-compiled on the build machine's platform for each target platform.
FROM --platform=$BUILDPLATFORM golang:1.26 AS build
ARG TARGETOS=linux
ARG TARGETARCH=amd64
ARG VERSION=0.0.0-dev
ARG GIT_COMMIT=
ARG BUILD_DATE=
WORKDIR /src
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
# The same flags as the Makefile's LDFLAGS and make image: static, trimmed paths, stripped, the
# version stamped into internal/version.
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
	CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH go build -trimpath -ldflags "-s -w \
	-X github.com/caldera-sh/caldera/internal/version.Version=$VERSION \
	-X github.com/caldera-sh/caldera/internal/version.GitCommit=$GIT_COMMIT \
	-X github.com/caldera-sh/caldera/internal/version.BuildDate=$BUILD_DATE" \
	-o /out/manager ./cmd/manager

# distroless/static: CA certificates, /etc/passwd with nonroot (65532), tzdata, no shell.
FROM gcr.io/distroless/static:nonroot
ARG VERSION=0.0.0-dev
ARG GIT_COMMIT=
ARG BUILD_DATE=
LABEL org.opencontainers.image.title="caldera" \
	org.opencontainers.image.description="Caldera: a GitOps-native, Volcano-compatible batch operator and gang/queue scheduler" \
	org.opencontainers.image.version="$VERSION" \
	org.opencontainers.image.revision="$GIT_COMMIT" \
	org.opencontainers.image.created="$BUILD_DATE" \
	org.opencontainers.image.source="https://github.com/caldera-sh/caldera" \
	org.opencontainers.image.url="https://github.com/caldera-sh/caldera" \
	org.opencontainers.image.licenses="Apache-2.0"
COPY --from=build /out/manager /manager
USER 65532:65532
WORKDIR /
ENTRYPOINT ["/manager"]
