package devstack

import "path/filepath"

// MarkerEnv is set to the stack's directory in the environment of the
// supervisor and so of every process it starts (mpirun's ranks inherit
// it too): Down finds stragglers by it in /proc.
const MarkerEnv = "BLASTFLEET_DEV_STACK"

// paths is the layout of a stack's directory.
type paths struct{ dir string }

func (p paths) join(elem ...string) string {
	return filepath.Join(append([]string{p.dir}, elem...)...)
}

func (p paths) state() string               { return p.join("state.json") }
func (p paths) config() string              { return p.join("config.json") }
func (p paths) ports() string               { return p.join("ports.json") }
func (p paths) credentials() string         { return p.join("minio-credentials.json") }
func (p paths) lock() string                { return p.join("supervisor.lock") }
func (p paths) kubeconfig() string          { return p.join("kubeconfig") }
func (p paths) operatorKubeconfig() string  { return p.join("operator.kubeconfig") }
func (p paths) operatorConfig() string      { return p.join("operator-config.yaml") }
func (p paths) pki() string                 { return p.join("pki") }
func (p paths) etcdData() string            { return p.join("etcd") }
func (p paths) minioData() string           { return p.join("minio") }
func (p paths) prometheusDir() string       { return p.join("prometheus") }
func (p paths) prometheusConfig() string    { return p.join("prometheus", "prometheus.yml") }
func (p paths) prometheusData() string      { return p.join("prometheus", "data") }
func (p paths) engineTargets() string       { return p.join("prometheus", "engine-targets.json") }
func (p paths) runner() string              { return p.join("runner") }
func (p paths) logs() string                { return p.join("logs") }
func (p paths) log(component string) string { return p.join("logs", component+".log") }
func (p paths) supervisorLog() string       { return p.log("supervisor") }
