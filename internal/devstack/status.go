package devstack

import (
	"context"
	"sync"
)

// Health is one component's condition now.
type Health struct {
	Component
	Running bool   `json:"running"`           // its recorded process is alive
	Healthy bool   `json:"healthy"`           // its health endpoint answered 200
	Problem string `json:"problem,omitempty"` // why not, when not
}

// StatusReport is the stack as it is now.
type StatusReport struct {
	State      *State   `json:"state"`
	Supervisor bool     `json:"supervisorRunning"`
	Components []Health `json:"health"`
}

// Healthy reports whether the stack is ready with every component up.
func (r *StatusReport) Healthy() bool {
	if !r.Supervisor || r.State.Phase != PhaseReady {
		return false
	}
	for _, c := range r.Components {
		if !c.Healthy {
			return false
		}
	}
	return true
}

// Status reads dir's state and checks each component: its process and
// its health endpoint.
func Status(ctx context.Context, dir string) (*StatusReport, error) {
	st, err := ReadState(dir)
	if err != nil {
		return nil, err
	}
	rep := &StatusReport{State: st, Supervisor: st.SupervisorAlive(), Components: make([]Health, len(st.Components))}
	var wg sync.WaitGroup
	for i, c := range st.Components {
		h := &rep.Components[i]
		h.Component = c
		h.Running = c.Proc.alive()
		if !h.Running {
			h.Problem = "not running"
			if c.LastExit != "" {
				h.Problem += " (last: " + c.LastExit + ")"
			}
			continue
		}
		if c.HealthURL == "" { // no health endpoint (containerd): running is all we know
			h.Healthy = true
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := probe(ctx, clientFor(dir, c.HealthURL), c.HealthURL); err != nil {
				h.Problem = err.Error()
				return
			}
			h.Healthy = true
		}()
	}
	wg.Wait()
	return rep, nil
}
