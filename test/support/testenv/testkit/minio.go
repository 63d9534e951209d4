package testkit

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// MinIOStore opens bucket under prefix on m, as partitions and users
// write it.
func MinIOStore(t testing.TB, m *testenv.MinIO, bucket, prefix string) objstore.Store {
	t.Helper()
	st, err := objstore.NewS3(objstore.S3Config{Endpoint: m.Host, Region: "us-east-1", PathStyle: true,
		AccessKey: m.AccessKey, SecretKey: m.SecretKey}, bucket, prefix)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// MinIOSecret is the credentials Secret for m under the keys a
// CredentialsSecretRef defaults to, opted in to being used as credentials.
func MinIOSecret(m *testenv.MinIO, namespace, name string) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: map[string]string{v1alpha1.CredentialsLabel: "true"}},
		Data:       map[string][]byte{"AWS_ACCESS_KEY_ID": []byte(m.AccessKey), "AWS_SECRET_ACCESS_KEY": []byte(m.SecretKey)},
	}
}
