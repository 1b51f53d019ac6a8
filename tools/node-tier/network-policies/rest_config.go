// Added to package main of sigs.k8s.io/kube-network-policies by tools/node-tier/build.sh (see
// patch.sh): v0.8.0 reads only the in-cluster service-account credentials; the node tier runs it as
// a node daemon with a client certificate of its own, named by these variables.

package main

import (
	"os"

	"k8s.io/client-go/rest"
)

// restConfig is the API server and client certificate from STEWARD_KNP_SERVER, STEWARD_KNP_CA,
// STEWARD_KNP_CERT and STEWARD_KNP_KEY when the first is set; the in-cluster config otherwise.
func restConfig() (*rest.Config, error) {
	server := os.Getenv("STEWARD_KNP_SERVER")
	if server == "" {
		return rest.InClusterConfig()
	}
	return &rest.Config{
		Host: server,
		TLSClientConfig: rest.TLSClientConfig{
			CAFile:   os.Getenv("STEWARD_KNP_CA"),
			CertFile: os.Getenv("STEWARD_KNP_CERT"),
			KeyFile:  os.Getenv("STEWARD_KNP_KEY"),
		},
	}, nil
}
