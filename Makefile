# blastfleet — `make demo` runs a search end to end; `make test` runs every test.
SHELL := /usr/bin/env bash
GO ?= go
BIN := bin
# The engine's MPI (docs/building-the-engine.md): mpi (Open MPI), mpi,mpich, or
# mpi,mpicc with CC=mpicc; e.g. make build ENGINE_TAGS=mpi,mpich
ENGINE_TAGS ?= mpi
export OMPI_ALLOW_RUN_AS_ROOT := 1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM := 1
export OMPI_MCA_mpi_yield_when_idle := 1
export OMPI_MCA_btl_vader_single_copy_mechanism := none

.PHONY: bench-regen all build deps test test-unit test-soak test-hpc vet fmt-check demo demo-engine demo-cluster images cluster bench bench-io bench-balance bench-batchsize bench-hotspot clean manifests generate verify-generated envtest \
	helm chart-crds helm-lint docker-lint install-test verify-dashboards

CONTROLLER_GEN = $$(hack/install-controller-gen.sh)

all: build

## deps: install BLAST+, OpenMPI, MPICH, plast-example, Prometheus and a MinIO server (idempotent)
deps:
	@hack/install-deps.sh

## build: bin/blastfleet (CLI) and bin/blastfleet-engine (MPI program)
build:
	@mkdir -p $(BIN)
	CGO_ENABLED=0 $(GO) build -o $(BIN)/blastfleet ./cmd/blastfleet
	CGO_ENABLED=0 $(GO) build -o $(BIN)/blastfleet-manager ./cmd/manager
	$(GO) build -tags $(ENGINE_TAGS) -o $(BIN)/blastfleet-engine ./cmd/engine

## manifests: CRDs and RBAC from the kubebuilder markers
manifests:
	$(CONTROLLER_GEN) crd paths=./api/... output:crd:artifacts:config=config/crd/bases
	$(CONTROLLER_GEN) rbac:roleName=blastfleet-manager paths=./controllers/... output:rbac:artifacts:config=config/rbac
	cp config/crd/bases/*.yaml charts/blastfleet/crds/

## generate: deep-copy methods of the API types
generate:
	$(CONTROLLER_GEN) object paths=./api/...

## verify-generated: fail when generated files are stale
verify-generated: manifests generate
	@git diff --exit-code -- config/crd config/rbac api charts/blastfleet/crds || { echo "generated files are stale: run make manifests generate and commit"; exit 1; }

## envtest: build etcd and kube-apiserver for the integration tests
envtest:
	@hack/install-envtest.sh

vet:
	$(GO) vet -tags mpi ./...
	$(GO) vet -tags mpi,mpich ./internal/mpi/ ./cmd/engine/
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed: $$out"; exit 1; fi

## helm: build helm from its Go module at a pinned version (hack/install-helm.sh)
helm:
	@hack/install-helm.sh

## chart-crds: copy the generated CRDs into the Helm chart (after make manifests)
chart-crds:
	cp config/crd/bases/*.yaml charts/blastfleet/crds/

## helm-lint: helm lint the charts (all optional features on, too)
helm-lint:
	HELM=$$(hack/install-helm.sh); \
	$$HELM lint --strict charts/blastfleet && \
	$$HELM lint --strict charts/blastfleet --set serviceMonitor.enabled=true,podMonitor.enabled=true,prometheusRule.enabled=true,dashboards.enabled=true,networkPolicy.enabled=true && \
	$$HELM lint --strict charts/mpi-operator

## docker-lint: check the Dockerfiles (pins, non-root, COPY sources, built packages; no Docker needed)
docker-lint:
	BLASTFLEET_REQUIRE_REAL=1 $(GO) test -count=1 -run 'Dockerfile' ./test/install/

## install-test: the charts, kustomize and Dockerfile tests (helm install against envtest)
install-test:
	BLASTFLEET_REQUIRE_REAL=1 KUBEBUILDER_ASSETS=$$(hack/install-envtest.sh) BLASTFLEET_HELM=$$(hack/install-helm.sh) \
	$(GO) test -count=1 ./test/install/

## verify-dashboards: the local stack (blastfleet dev up), a small real campaign, then every Grafana
## panel and alert evaluated through its Prometheus; fails on any invalid or empty query, and runs
## promtool check/test rules (docs/observability.md). make test runs it too.
verify-dashboards: deps build
	BLASTFLEET_REQUIRE_REAL=1 BLASTFLEET_MINIO=$$(hack/install-minio.sh) KUBEBUILDER_ASSETS=$$(hack/install-envtest.sh) \
	BLASTFLEET_ENGINE=$(CURDIR)/$(BIN)/blastfleet-engine BLASTFLEET_CLI=$(CURDIR)/$(BIN)/blastfleet \
	$(GO) test -count=1 -timeout 10m ./internal/dashcheck/ ./test/dashboards/

## test: install what is needed, build (binaries, the one-node cluster's components, the images), and run
## every test against real BLAST+, OpenMPI, MinIO, and a real one-node cluster (test/e2e TestOneNodeCluster)
test: deps fmt-check vet build verify-generated
	@hack/install-cluster.sh >/dev/null
	@hack/install-argo.sh >/dev/null
	BLASTFLEET_REQUIRE_REAL=1 BLASTFLEET_MINIO=$$(hack/install-minio.sh) KUBEBUILDER_ASSETS=$$(hack/install-envtest.sh) \
	BLASTFLEET_IMAGES=$$(hack/build-images.sh) \
	BLASTFLEET_HELM=$$(hack/install-helm.sh) BLASTFLEET_ENGINE=$(CURDIR)/$(BIN)/blastfleet-engine BLASTFLEET_CLI=$(CURDIR)/$(BIN)/blastfleet \
	$(GO) test -tags mpi -count=1 -timeout 30m ./...

## test-hpc: the HPC site suite alone (a one-node Slurm of its own, MinIO, BLAST+, OpenMPI), verbose
test-hpc: deps build
	BLASTFLEET_REQUIRE_REAL=1 BLASTFLEET_MINIO=$$(hack/install-minio.sh) \
	BLASTFLEET_ENGINE=$(CURDIR)/$(BIN)/blastfleet-engine BLASTFLEET_CLI=$(CURDIR)/$(BIN)/blastfleet \
	$(GO) test -tags mpi -count=1 -v -timeout 20m ./test/hpc/

## test-soak: longer runs (larger data, more ranks)
test-soak: deps build
	BLASTFLEET_REQUIRE_REAL=1 BLASTFLEET_SOAK=1 BLASTFLEET_MINIO=$$(hack/install-minio.sh) \
	BLASTFLEET_ENGINE=$(CURDIR)/$(BIN)/blastfleet-engine BLASTFLEET_CLI=$(CURDIR)/$(BIN)/blastfleet \
	$(GO) test -tags mpi -timeout 120m ./...

## demo: the local stack (blastfleet dev up), then a BlastDatabase and a SearchCampaign
## applied with kubectl on Debian's plast-example proteins, compared with blastp; the stack stays up
demo: deps build
	@hack/demo.sh

## images: the operator, worker, MPI operator, Kueue, Argo Workflows, MinIO and pause images from their Dockerfiles, with
## buildah and bases made from Debian packages (no Docker, no registry); archives in ~/.cache/blastfleet/images
images: deps
	@hack/build-images.sh

## cluster: build the one-node cluster's kubelet, kube-controller-manager, kube-scheduler, kube-proxy, CoreDNS,
## and Argo Workflows' controller and executor (hack/install-argo.sh)
cluster:
	@hack/install-cluster.sh
	@hack/install-argo.sh

## demo-cluster: make demo's campaign on a real one-node cluster (blastfleet dev up --cluster:
## containerd, kubelet, the real MPI operator and Job controller); needs root; the cluster stays up
demo-cluster: deps build
	@hack/demo-cluster.sh

## demo-engine: the engine alone under mpirun on the same data, without Kubernetes
demo-engine: deps build
	@hack/demo-engine.sh

## bench-regen: metadata transfer's bytes and regeneration's cost, all-against-all proteins (docs/benchmarks.md)
bench-regen: deps build
	@bench/regen.sh

## bench: the engine against BLAST+ side by side; BENCH_WORKLOADS=a,b,c (default), plast, uniprot (docs/benchmarks.md)
bench: deps build
	@bench/engine.sh

## bench-batchsize: blastn's time against BATCH_SIZE per task, to choose B (issue 28; docs/benchmarks.md)
bench-batchsize: deps
	@$(GO) run ./bench/batchsize

## bench-io: output strategies x ranks and the compute-speed sweep, simulate backend (docs/benchmarks.md)
bench-io: build
	@bench/io.sh

## bench-balance: dynamic scheduling against LengthSplit and WeightSplit on skewed sets (docs/benchmarks.md)
bench-balance: deps build
	@bench/balance.sh

## bench-hotspot: one store, one store a hot spot, two replicas, two with one a hot spot (CEFT-PVFS's figure 9;
## issue 29), each MinIO behind a throttled fault proxy: cold-cache staging alone, then whole engine runs
## (staging, BLAST+, output) with cold caches (docs/benchmarks.md)
bench-hotspot: deps build
	@BLASTFLEET_MINIO=$$(hack/install-minio.sh) $(GO) run ./bench/hotspot

clean:
	rm -rf $(BIN)
