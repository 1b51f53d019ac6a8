// Command etcd is etcd's own server entry point, built from the go.etcd.io/etcd/server/v3 module
// at the version pinned in ../versions.env. etcd's root module carries replace directives, so
// `go install go.etcd.io/etcd/v3@version` refuses; this wrapper module requires only the server.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
