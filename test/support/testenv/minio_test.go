package testenv

import (
	"context"
	"testing"
)

func TestStartMinIO(t *testing.T) {
	m := StartMinIO(t)
	m.MakeBucket(t, "probe")
	ok, err := m.Client(t).BucketExists(context.Background(), "probe")
	if err != nil || !ok {
		t.Fatalf("BucketExists(probe) = %v, %v; want true, nil", ok, err)
	}
	env := map[string]bool{}
	for _, kv := range m.Env() {
		env[kv] = true
	}
	for _, want := range []string{"AWS_REGION=us-east-1", "AWS_ENDPOINT_URL=" + m.Endpoint, "AWS_ACCESS_KEY_ID=" + m.AccessKey} {
		if !env[want] {
			t.Errorf("Env() lacks %s", want)
		}
	}
}
