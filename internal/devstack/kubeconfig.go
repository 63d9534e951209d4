package devstack

import (
	"fmt"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// contextName names the kubeconfig's cluster, user and context.
const contextName = "blastfleet-dev"

// writeKubeconfig writes a kubeconfig for user (its client certificate
// <certName>.crt) against the API server at server, with everything
// inline, so it works from anywhere on this machine.
func writeKubeconfig(path string, k pki, server, certName, namespace string) error {
	ca, err := k.bytes("ca.crt")
	if err != nil {
		return err
	}
	crt, err := k.bytes(certName + ".crt")
	if err != nil {
		return err
	}
	key, err := k.bytes(certName + ".key")
	if err != nil {
		return err
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[contextName] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: ca}
	cfg.AuthInfos[contextName] = &clientcmdapi.AuthInfo{ClientCertificateData: crt, ClientKeyData: key}
	cfg.Contexts[contextName] = &clientcmdapi.Context{Cluster: contextName, AuthInfo: contextName, Namespace: namespace}
	cfg.CurrentContext = contextName
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		return fmt.Errorf("writing kubeconfig %s: %w", path, err)
	}
	return nil
}

// RESTConfig loads a kubeconfig file (the stack's, for tests and tools).
func RESTConfig(kubeconfig string) (*rest.Config, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig %s: %w", kubeconfig, err)
	}
	return cfg, nil
}
