package policy

import (
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
)

const defaultImage = "ghcr.io/blastfleet/worker:v1"

// checkErr says whether err is as wanted: nil when want is "", else a
// Violation with reason whose message holds every part of want.
func checkErr(t *testing.T, what string, err error, reason string, want ...string) {
	t.Helper()
	if len(want) == 0 {
		if err != nil {
			t.Errorf("%s: %v, want allowed", what, err)
		}
		return
	}
	var v *Violation
	if !errors.As(err, &v) {
		t.Errorf("%s: %v, want a policy violation", what, err)
		return
	}
	if v.Reason != reason {
		t.Errorf("%s: reason %s, want %s", what, v.Reason, reason)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s: %q lacks %q", what, err, w)
		}
	}
}

// An empty policy allows anything but internal endpoints
// (TestEndpointInternalRefusedByDefault).
func TestEmptyPolicyAllowsEverything(t *testing.T) {
	var p Policy
	checkErr(t, "image", p.Image("spec.partitions.image", "evil/x", defaultImage), "")
	checkErr(t, "placement", p.Placement("spec.partitions", Placement{PriorityClassName: "system-node-critical",
		NodeSelector: map[string]string{"node-role.kubernetes.io/control-plane": ""},
		Tolerations:  []corev1.Toleration{{Operator: corev1.TolerationOpExists}}}), "")
	checkErr(t, "endpoint", p.Endpoint("endpoint", "https://s3.example.org:9000"), "")
	checkErr(t, "secret", p.CredentialsSecret("credentialsSecretRef", "s3", &corev1.Secret{}), "")
}

func TestImage(t *testing.T) {
	p := Policy{Images: []string{"registry.example.org/blastfleet/*", "docker.io/library/debian:12"}}
	for _, c := range []struct {
		image string
		ok    bool
	}{
		{"", true},           // the operator's default
		{defaultImage, true}, // the administrator's own --worker-image
		{"registry.example.org/blastfleet/worker:v2", true},
		{"registry.example.org/blastfleet/sub/worker@sha256:abc", true},
		{"docker.io/library/debian:12", true},
		{"docker.io/library/debian:13", false},
		{"registry.example.org/blastfleet-evil/worker:v2", false},
		{"registry.example.org/blastfleet", false},
		{"evil/x", false},
	} {
		err := p.Image("spec.partitions.image", c.image, defaultImage)
		if c.ok {
			checkErr(t, c.image, err, "")
		} else {
			checkErr(t, c.image, err, ReasonViolation, `spec.partitions.image: "`+c.image+`" is not allowed by the operator's policy`,
				"(allowed: registry.example.org/blastfleet/*, docker.io/library/debian:12)")
		}
	}
}

func TestPlacement(t *testing.T) {
	p := Policy{PriorityClasses: []string{"batch-low"}, NodeSelectors: []string{"pool=blast", "zone"}, TolerationKeys: []string{"dedicated"}}
	ok := Placement{PriorityClassName: "batch-low", NodeSelector: map[string]string{"pool": "blast", "zone": "eu-1"},
		Tolerations: []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "blast", Effect: corev1.TaintEffectNoSchedule}}}
	checkErr(t, "allowed placement", p.Placement("spec.partitions", ok), "")
	checkErr(t, "nothing asked", p.Placement("spec.partitions", Placement{}), "")

	checkErr(t, "priority class", p.Placement("spec.partitions", Placement{PriorityClassName: "system-cluster-critical"}), ReasonViolation,
		`spec.partitions.priorityClassName: "system-cluster-critical" is not allowed`, "(allowed: batch-low)")
	checkErr(t, "node selector value", p.Placement("spec.partitions", Placement{NodeSelector: map[string]string{"pool": "gpu"}}), ReasonViolation,
		`spec.partitions.nodeSelector[pool]: "pool=gpu" is not allowed`, "(allowed: pool=blast, zone)")
	checkErr(t, "node selector key", p.Placement("spec.partitions", Placement{NodeSelector: map[string]string{"kubernetes.io/hostname": "control-1"}}), ReasonViolation,
		`spec.partitions.nodeSelector[kubernetes.io/hostname]`)
	checkErr(t, "toleration key", p.Placement("spec.partitions", Placement{Tolerations: []corev1.Toleration{ok.Tolerations[0], {Key: "node-role.kubernetes.io/control-plane", Operator: corev1.TolerationOpExists}}}), ReasonViolation,
		`spec.partitions.tolerations[1].key: "node-role.kubernetes.io/control-plane" is not allowed`)
	checkErr(t, "toleration of every taint", p.Placement("spec.partitions", Placement{Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}}}), ReasonViolation,
		"spec.partitions.tolerations[0].key: a toleration without a key tolerates every taint")

	// Every violation is named, not just the first.
	err := p.Placement("spec.partitions", Placement{PriorityClassName: "x", NodeSelector: map[string]string{"a": "1", "b": "2"}})
	checkErr(t, "three at once", err, ReasonViolation, "priorityClassName", "nodeSelector[a]", "nodeSelector[b]")
	if err.Error() != p.Placement("spec.partitions", Placement{PriorityClassName: "x", NodeSelector: map[string]string{"b": "2", "a": "1"}}).Error() {
		t.Error("the message depends on map order: a condition would change on every reconcile")
	}
}

func TestEndpoint(t *testing.T) {
	p := Policy{Endpoints: []string{"minio.storage.svc", "*.s3.example.org", "s3.amazonaws.com", "0.0.0.0/0", "10.20.0.0/16", "127.0.0.1", "fd00:1::/64"}}
	for _, c := range []struct {
		endpoint string
		internal string // "" when allowed; else the range named
		denied   bool
	}{
		{endpoint: ""}, // AWS S3
		{endpoint: "http://minio.storage.svc:9000"},
		{endpoint: "http://MINIO.storage.svc.:9000/"},
		{endpoint: "https://eu.s3.example.org"},
		{endpoint: "https://a.b.s3.example.org"},
		{endpoint: "https://s3.example.org", denied: true}, // *.domain is under it, not it
		{endpoint: "https://s3.example.org.evil.com", denied: true},
		{endpoint: "http://minio.storage.svc.evil.com", denied: true},
		{endpoint: "http://kubernetes.default.svc", denied: true},
		{endpoint: "https://52.216.1.2"},      // public: 0.0.0.0/0
		{endpoint: "http://10.20.3.4:9000"},   // inside the listed 10.20.0.0/16
		{endpoint: "http://127.0.0.1:9000"},   // listed exactly
		{endpoint: "http://[fd00:1::5]:9000"}, // inside the listed fd00:1::/64
		{endpoint: "http://10.21.0.1", internal: "10.0.0.0/8"},
		{endpoint: "http://127.0.0.2", internal: "127.0.0.0/8"},
		{endpoint: "http://169.254.169.254", internal: "169.254.0.0/16"},
		{endpoint: "http://192.168.1.1", internal: "192.168.0.0/16"},
		{endpoint: "http://[::1]:9000", internal: "::1/128"},
		{endpoint: "http://[::ffff:169.254.169.254]", internal: "169.254.0.0/16"},
		{endpoint: "http://[fe80::1]", internal: "fe80::/10"},
		{endpoint: "http://0.0.0.0:9000", internal: "0.0.0.0/8"},
		{endpoint: "http://[2001:db8::1]", denied: true}, // 0.0.0.0/0 is IPv4 only
	} {
		err := p.Endpoint("endpoint", c.endpoint)
		switch {
		case c.internal != "":
			checkErr(t, c.endpoint, err, ReasonViolation, `endpoint: "`+c.endpoint+`" is not allowed by the operator's policy`, "is an internal address ("+c.internal+")")
		case c.denied:
			checkErr(t, c.endpoint, err, ReasonViolation, `endpoint: "`+c.endpoint+`" is not allowed by the operator's policy (allowed: minio.storage.svc, *.s3.example.org`)
		default:
			checkErr(t, c.endpoint, err, "")
		}
	}
	// Without 0.0.0.0/0 a public address needs its own entry too.
	checkErr(t, "public, unlisted", Policy{Endpoints: []string{"minio.storage.svc"}}.Endpoint("endpoint", "https://52.216.1.2"), ReasonViolation, "not allowed")
	checkErr(t, "AWS unlisted", Policy{Endpoints: []string{"minio.storage.svc"}}.Endpoint("endpoint", ""), ReasonViolation, `""`)
	// A superset of an internal range does not open it.
	checkErr(t, "superset", Policy{Endpoints: []string{"172.0.0.0/8"}}.Endpoint("endpoint", "http://172.16.0.1"), ReasonViolation, "internal address (172.16.0.0/12)")
}

func TestCredentialsSecret(t *testing.T) {
	p := Policy{RequireCredentialsLabel: true}
	sec := func(labels map[string]string) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s3", Labels: labels}}
	}
	checkErr(t, "labelled", p.CredentialsSecret("credentialsSecretRef", "s3", sec(map[string]string{v1alpha1.CredentialsLabel: "true"})), "")
	var refusals []string
	for _, s := range []*corev1.Secret{nil, sec(nil), sec(map[string]string{v1alpha1.CredentialsLabel: "false"}), sec(map[string]string{v1alpha1.CredentialsLabel: ""}), sec(map[string]string{"blastfleet.io/credential": "true"})} {
		err := p.CredentialsSecret("credentialsSecretRef", "s3", s)
		checkErr(t, "unlabelled or missing", err, ReasonSecretNotAllowed,
			`credentialsSecretRef: Secret "s3" is not one the operator's policy lets it use`, "kubectl label secret s3 blastfleet.io/credentials=true")
		if err != nil {
			refusals = append(refusals, err.Error())
		}
	}
	// A missing Secret reads exactly as an unlabelled one: the author
	// learns nothing of which Secrets exist.
	if len(refusals) > 1 && refusals[0] != refusals[1] {
		t.Errorf("missing Secret: %q; unlabelled: %q", refusals[0], refusals[1])
	}
	checkErr(t, "label not required", Policy{}.CredentialsSecret("credentialsSecretRef", "s3", sec(nil)), "")
}

func TestValidate(t *testing.T) {
	good := Policy{Images: []string{"r/*"}, NodeSelectors: []string{"pool", "pool=a"}, Endpoints: []string{"a.b", "*.c.d", "10.0.0.0/8", "::1", "127.0.0.1"}}
	if err := good.Validate(); err != nil {
		t.Errorf("%+v: %v", good, err)
	}
	for _, bad := range []Policy{
		{Images: []string{""}},
		{PriorityClasses: []string{"a b"}},
		{NodeSelectors: []string{"=x"}},
		{Endpoints: []string{"10.0.0.0/33"}},
		{Endpoints: []string{"http://minio:9000"}},
		{Endpoints: []string{"*."}},
		{Endpoints: []string{"a.*.b"}},
	} {
		if err := bad.Validate(); err == nil {
			t.Errorf("%+v is valid, want refused", bad)
		}
	}
}

// The operator lends its own identity only when allowed; a campaign's
// service account is checked against the list, the default always passes.
func TestIdentityPolicies(t *testing.T) {
	var p Policy
	var v *Violation
	if err := p.OperatorIdentity("spec.output.credentialsSecretRef"); !errors.As(err, &v) || v.Reason != ReasonViolation ||
		!strings.Contains(err.Error(), "--allow-operator-identity") {
		t.Errorf("operator identity by default: %v", err)
	}
	p.AllowOperatorIdentity = true
	if err := p.OperatorIdentity("f"); err != nil {
		t.Errorf("allowed: %v", err)
	}
	if err := p.ServiceAccount("f", "anything"); err != nil {
		t.Errorf("no list: %v", err)
	}
	p.ServiceAccounts = []string{"blast-irsa"}
	for name, ok := range map[string]bool{"": true, "blast-irsa": true, "admin": false} {
		if err := p.ServiceAccount("spec.partitions.serviceAccountName", name); (err == nil) != ok {
			t.Errorf("service account %q: %v", name, err)
		}
	}
}

// A store reached with an identity must be AWS S3 or listed: an empty
// list, which allows any endpoint for keys, does not allow it.
func TestIdentityEndpoint(t *testing.T) {
	for _, e := range []string{"", "https://s3.amazonaws.com", "https://b.s3.eu-west-1.amazonaws.com", "https://s3.cn-north-1.amazonaws.com.cn"} {
		checkErr(t, e, Policy{}.IdentityEndpoint("endpoint", e), "")
	}
	for _, e := range []string{"https://attacker.example", "https://amazonaws.com.attacker.example", "https://evilamazonaws.com", "http://169.254.169.254"} {
		checkErr(t, e, Policy{}.IdentityEndpoint("endpoint", e), ReasonViolation, "reached with an identity", "--allowed-endpoints")
	}
	listed := Policy{Endpoints: []string{"minio.storage.svc"}}
	checkErr(t, "listed", listed.IdentityEndpoint("endpoint", "http://minio.storage.svc:9000"), "")
	checkErr(t, "unlisted", listed.IdentityEndpoint("endpoint", "https://attacker.example"), ReasonViolation, "reached with an identity")
}

// With no allowlist, the operator reaches any public endpoint but no
// internal one: its own host, the cluster's network and Services, the
// cloud's metadata service, unless the administrator allows them.
func TestEndpointInternalRefusedByDefault(t *testing.T) {
	internal := []string{
		"http://127.0.0.1:9000", "http://[::1]:9000", "http://169.254.169.254", "http://[::ffff:169.254.169.254]",
		"http://[fe80::1]", "http://10.1.2.3", "http://172.16.0.1", "http://172.31.255.255", "http://192.168.1.1",
		"http://[fd00::1]", "http://100.64.0.1", "http://0.0.0.0:9000", "http://[fe80::1%25eth0]",
		"http://localhost:9000", "http://LOCALHOST.", "http://x.localhost", "http://metadata.google.internal",
		"http://instance-data.ec2.internal", "http://minio.storage.svc:9000", "http://minio.storage.svc.cluster.local:9000",
		"http://kubernetes.default.svc.cluster.local", "http://minio:9000", "http://2130706433", "http://127.1", "http://0x7f.1",
	}
	for _, e := range internal {
		checkErr(t, e, Policy{}.Endpoint("spec.output.endpoint", e), ReasonViolation, "--allow-internal-endpoints", "--allowed-endpoints")
		checkErr(t, e+" allowed", Policy{AllowInternalEndpoints: true}.Endpoint("spec.output.endpoint", e), "")
	}
	for _, e := range []string{"", "https://s3.amazonaws.com", "https://s3.eu-west-1.amazonaws.com", "https://52.216.1.2", "https://[2600:1f18::1]",
		"https://minio.example.org:9000", "https://svc.example.org", "https://local.example.org", "https://172.32.0.1"} {
		checkErr(t, e, Policy{}.Endpoint("spec.output.endpoint", e), "")
	}
	// A list decides by itself, as before: an internal name it lists is
	// allowed, AllowInternalEndpoints or not.
	checkErr(t, "listed", Policy{Endpoints: []string{"minio.storage.svc"}}.Endpoint("endpoint", "http://minio.storage.svc:9000"), "")
}

func TestCABundleConfigMap(t *testing.T) {
	p := Policy{RequireCABundleLabel: true}
	cm := func(labels map[string]string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "corp-ca", Labels: labels}}
	}
	checkErr(t, "labelled", p.CABundleConfigMap("spec.output.caBundle", "corp-ca", cm(map[string]string{v1alpha1.CABundleLabel: "true"})), "")
	for _, c := range []*corev1.ConfigMap{cm(nil), cm(map[string]string{v1alpha1.CABundleLabel: "yes"}), cm(map[string]string{v1alpha1.CredentialsLabel: "true"})} {
		checkErr(t, "unlabelled", p.CABundleConfigMap("spec.output.caBundle", "corp-ca", c), ReasonCABundleNotAllowed,
			`spec.output.caBundle: ConfigMap "corp-ca" is not one the operator's policy lets it use as a caBundle`, "kubectl label configmap corp-ca blastfleet.io/ca-bundle=true")
	}
	checkErr(t, "label not required", Policy{}.CABundleConfigMap("spec.output.caBundle", "corp-ca", cm(nil)), "")
}

// TestIsRefusal: every reason the policy refuses with is a refusal, so a
// campaign and a database get a warning event for it.
func TestIsRefusal(t *testing.T) {
	for _, r := range []string{ReasonViolation, ReasonSecretNotAllowed, ReasonCABundleNotAllowed} {
		if !IsRefusal(r) {
			t.Errorf("IsRefusal(%s) = false", r)
		}
	}
	if IsRefusal("StorageUnavailable") {
		t.Error("IsRefusal(StorageUnavailable) = true")
	}
}
