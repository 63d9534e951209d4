package controllers

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
)

// event is one event gathered during a reconcile, emitted once the
// status it describes is written.
type event struct {
	warning        bool
	reason, action string
	note           string
}

// emit records events on obj.
func emit(rec events.EventRecorder, obj runtime.Object, evs []event) {
	if rec == nil {
		return
	}
	for _, e := range evs {
		t := corev1.EventTypeNormal
		if e.warning {
			t = corev1.EventTypeWarning
		}
		rec.Eventf(obj, nil, t, e.reason, e.action, "%s", truncate(e.note, 1000))
	}
}
