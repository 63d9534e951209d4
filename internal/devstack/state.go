package devstack

import (
	"errors"
	"fmt"
	"io/fs"
	"time"
)

// Phase is where the stack is in its life.
type Phase string

const (
	PhaseStarting Phase = "starting"
	PhaseReady    Phase = "ready"
	PhaseStopping Phase = "stopping"
	PhaseStopped  Phase = "stopped"
	PhaseFailed   Phase = "failed"
)

// State is state.json: what runs where. The supervisor writes it (mode
// 0600: it holds MinIO's credentials) at every change; up, status and
// down read it.
type State struct {
	Dir        string    `json:"dir"`
	Phase      Phase     `json:"phase"`
	Message    string    `json:"message,omitempty"`
	Steps      []Step    `json:"steps"`
	Supervisor Proc      `json:"supervisor"`
	StartedAt  time.Time `json:"startedAt"`
	ReadyAt    time.Time `json:"readyAt,omitzero"`
	StoppedAt  time.Time `json:"stoppedAt,omitzero"`
	Kubeconfig string    `json:"kubeconfig"`
	// Context is the kubeconfig's context (and cluster) name.
	Context    string      `json:"context"`
	Components []Component `json:"components"`
	MinIO      MinIOInfo   `json:"minio"`
	Prometheus string      `json:"prometheus"` // its URL
	Runner     RunnerInfo  `json:"runner"`
	// Cluster is set when the stack is a real one-node cluster.
	Cluster  *ClusterInfo `json:"cluster,omitempty"`
	Warnings []string     `json:"warnings,omitempty"`
}

// ClusterInfo is the one-node cluster's network and node.
type ClusterInfo struct {
	Node             string `json:"node"`
	NodeIP           string `json:"nodeIP"`
	PodCIDR          string `json:"podCIDR"`
	ServiceCIDR      string `json:"serviceCIDR"`
	Bridge           string `json:"bridge"`
	Namespace        string `json:"namespace"` // what the stack installs
	ContainerdSocket string `json:"containerdSocket"`
	MPIOperator      string `json:"mpiOperator,omitempty"` // its version
	Argo             string `json:"argo,omitempty"`        // Argo Workflows' version, when installed
}

// Step is one line of progress while starting or stopping.
type Step struct {
	At      time.Time `json:"at"`
	Message string    `json:"message"`
}

// Proc is a process, told apart from a later one with the same pid by
// its start time (clock ticks since boot, /proc/PID/stat field 22).
type Proc struct {
	PID   int    `json:"pid"`
	Start string `json:"start"`
	Log   string `json:"log,omitempty"`
}

// Component is one supervised child process.
type Component struct {
	Name string `json:"name"`
	Proc
	// URL is where it serves; HealthURL answers 200 when it is healthy.
	URL       string `json:"url"`
	HealthURL string `json:"healthURL"`
	// Notes says more (other ports, what it is for).
	Notes    string `json:"notes,omitempty"`
	Restarts int    `json:"restarts"`
	LastExit string `json:"lastExit,omitempty"`
}

// MinIOInfo is how to reach the object store.
type MinIOInfo struct {
	Endpoint  string `json:"endpoint"`
	Region    string `json:"region"`
	Bucket    string `json:"bucket"`
	AccessKey string `json:"accessKey"`
	SecretKey string `json:"secretKey"`
	Secret    string `json:"secret"` // namespace/name of the credentials Secret
}

// RunnerInfo is the local runner inside the supervisor.
type RunnerInfo struct {
	WorkDir         string          `json:"workDir"`
	MetricsPortBase int             `json:"metricsPortBase"`
	Processes       []RunnerProcess `json:"processes,omitempty"`
}

// RunnerProcess is a launcher or Job pod the runner is running.
type RunnerProcess struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Index     int    `json:"index"`
	PID       int    `json:"pid"`
	Log       string `json:"log"`
	// MetricsPorts are an MPIJob's ranks' ports [first, last].
	MetricsPorts [2]int `json:"metricsPorts,omitzero"`
}

// ErrNoStack means the directory holds no stack state.
var ErrNoStack = errors.New("no local stack here")

// ReadState reads a stack's state.json.
func ReadState(dir string) (*State, error) {
	var s State
	if err := readJSON(paths{dir}.state(), &s); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s has no state.json (start it with blastfleet dev up)", ErrNoStack, dir)
		}
		return nil, fmt.Errorf("stack state: %w", err)
	}
	return &s, nil
}

func (s *State) write() error {
	return writeJSON(paths{s.Dir}.state(), s, 0o600)
}

// Component returns the named component, or nil.
func (s *State) Component(name string) *Component {
	for i := range s.Components {
		if s.Components[i].Name == name {
			return &s.Components[i]
		}
	}
	return nil
}

// SupervisorAlive reports whether the recorded supervisor still runs.
func (s *State) SupervisorAlive() bool { return s.Supervisor.alive() }

func (p Proc) alive() bool {
	if p.PID <= 0 {
		return false
	}
	st, ok := procStat(p.PID)
	return ok && st.start == p.Start && st.state != "Z" && st.state != "X"
}
