// Command provisioner is the node tier's dynamic local-volume provisioner: it gives the single-node
// test cluster a StorageClass whose PersistentVolumeClaims bind, can be deleted and re-created.
//
// It runs on the host, out of cluster, as root, next to the kubelet. For every unbound PVC whose
// StorageClass names this provisioner (with volumeBindingMode WaitForFirstConsumer only once the
// scheduler has set volume.kubernetes.io/selected-node) it creates the directory
// <base-dir>/<namespace>_<name>_<uid> (mode 0777, so non-root pods can write) and a hostPath PV
// pvc-<uid> pre-bound to the claim, pinned to --node-name; kube-controller-manager's
// persistentvolume-binder completes the binding. When a PV it provisioned becomes Released or
// Failed and its reclaim policy is Delete, it removes the directory (only a direct child of
// base-dir, never through a symlink) and deletes the PV; Retain leaves both alone.
//
// One provisioner serves several nodes of one machine (the multi-node tier) with a repeated
// --node <name>=<base-dir>: a claim gets a directory under its selected node's base dir and a PV
// pinned to that node (an Immediate class: the first node given); a Released PV's directory is
// removed only if it sits directly under the base dir of the node its PV is pinned to.
//
// Why not rancher's local-path-provisioner or sigs.k8s.io/sig-storage-lib-external-provisioner:
// the former creates and deletes directories through helper pods (an image, a pull, a pod per
// volume) and is a large build; the latter (v11.0.1, the newest, is built against client-go 0.30)
// adds leader election and Prometheus metrics for what is here three informers and a work queue.
// It is also the resizer of its volumes (the part of kubernetes-csi/external-resizer a hostPath
// directory needs): when a bound claim of one of its PVs asks for more than its status capacity —
// which the API server allows only on a StorageClass with allowVolumeExpansion — it raises the PV's
// capacity, then records the new capacity in the claim's status (allocatedResources too, resize
// statuses and conditions cleared). No filesystem grows: a hostPath directory has no size of its
// own, so the figure is bookkeeping, as on any hostPath volume.
// Not supported: block volumes, claim selectors, data sources, capacity limits, shrinking (the API
// server refuses it anyway).
//
// The permissions it needs are in rbac.yaml; test.sh proves it against a real control plane.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	storagelisters "k8s.io/client-go/listers/storage/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
)

const (
	annProvisionedBy = "pv.kubernetes.io/provisioned-by"
	annSelectedNode  = "volume.kubernetes.io/selected-node"
	annBetaClass     = "volume.beta.kubernetes.io/storage-class"
	labelHostname    = "kubernetes.io/hostname"
)

type provisioner struct {
	name string
	// node name -> base dir (absolute, symlinks resolved); nodeOrder[0] serves Immediate classes
	baseDirs  map[string]string
	nodeOrder []string
	client    kubernetes.Interface
	pvcs      corelisters.PersistentVolumeClaimLister
	pvs       corelisters.PersistentVolumeLister
	classes   storagelisters.StorageClassLister
	recorder  record.EventRecorder
	queue     workqueue.TypedRateLimitingInterface[string] // "pvc/<ns>/<name>" or "pv/<name>"
}

func main() {
	hostname, _ := os.Hostname()
	kubeconfig := flag.String("kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig file (default $KUBECONFIG)")
	name := flag.String("provisioner-name", "steward.dev/local-path", "StorageClass provisioner this program serves")
	baseDir := flag.String("base-dir", "", "directory the volume directories are created in (required)")
	node := flag.String("node-name", strings.ToLower(hostname), "node the volumes live on (PV nodeAffinity kubernetes.io/hostname)")
	var nodes nodeFlags
	flag.Var(&nodes, "node", "<node-name>=<base-dir>, repeatable: serve several nodes (instead of --node-name/--base-dir)")
	healthz := flag.String("healthz-bind", "", "address for GET /healthz, e.g. 127.0.0.1:9808 (off when empty)")
	flag.Parse()
	log.SetFlags(log.Ltime | log.Lmicroseconds)
	log.SetPrefix("provisioner: ")

	if len(nodes) == 0 {
		if *baseDir == "" || *node == "" {
			log.Fatal("--base-dir and --node-name (or --node <name>=<base-dir>) are required")
		}
		nodes = nodeFlags{{*node, *baseDir}}
	}
	baseDirs := map[string]string{}
	var nodeOrder []string
	for _, n := range nodes {
		base, err := filepath.Abs(n.baseDir)
		if err == nil {
			err = os.MkdirAll(base, 0o755)
		}
		if err == nil {
			base, err = filepath.EvalSymlinks(base)
		}
		if err != nil {
			log.Fatalf("base dir of node %s: %v", n.name, err)
		}
		if _, dup := baseDirs[n.name]; dup {
			log.Fatalf("node %s given twice", n.name)
		}
		baseDirs[n.name] = base
		nodeOrder = append(nodeOrder, n.name)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		log.Fatalf("kubeconfig: %v", err)
	}
	cfg.UserAgent = "steward-local-path-provisioner"
	client := kubernetes.NewForConfigOrDie(cfg)

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	factory := informers.NewSharedInformerFactory(client, 5*time.Minute)
	broadcaster := record.NewBroadcaster(record.WithContext(ctx))
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: client.CoreV1().Events("")})
	defer broadcaster.Shutdown()
	p := &provisioner{
		name: *name, baseDirs: baseDirs, nodeOrder: nodeOrder, client: client,
		pvcs:     factory.Core().V1().PersistentVolumeClaims().Lister(),
		pvs:      factory.Core().V1().PersistentVolumes().Lister(),
		classes:  factory.Storage().V1().StorageClasses().Lister(),
		recorder: broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "steward-local-path-provisioner"}),
		queue: workqueue.NewTypedRateLimitingQueue(workqueue.NewTypedItemExponentialFailureRateLimiter[string](
			250*time.Millisecond, 30*time.Second)),
	}
	enqueue := func(prefix string) cache.ResourceEventHandlerFuncs {
		add := func(obj any) {
			if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
				p.queue.Add(prefix + key)
			}
		}
		return cache.ResourceEventHandlerFuncs{AddFunc: add, UpdateFunc: func(_, obj any) { add(obj) }}
	}
	mustHandle(factory.Core().V1().PersistentVolumeClaims().Informer().AddEventHandler(enqueue("pvc/")))
	mustHandle(factory.Core().V1().PersistentVolumes().Informer().AddEventHandler(enqueue("pv/")))
	// A class created after its claims: look at every claim again.
	requeueClaims := func(any) {
		claims, _ := p.pvcs.List(labels.Everything())
		for _, c := range claims {
			p.queue.Add("pvc/" + c.Namespace + "/" + c.Name)
		}
	}
	mustHandle(factory.Storage().V1().StorageClasses().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: requeueClaims, UpdateFunc: func(_, obj any) { requeueClaims(obj) }}))

	factory.Start(ctx.Done())
	defer factory.Shutdown()
	var synced atomic.Bool
	if *healthz != "" {
		srv := &http.Server{Addr: *healthz, ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(
			func(w http.ResponseWriter, _ *http.Request) {
				if !synced.Load() {
					http.Error(w, "informers not synced", http.StatusServiceUnavailable)
					return
				}
				_, _ = w.Write([]byte("ok\n"))
			})}
		go func() {
			if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
				log.Fatalf("healthz: %v", err)
			}
		}()
		defer srv.Close()
	}
	for typ, ok := range factory.WaitForCacheSync(ctx.Done()) {
		if !ok && ctx.Err() == nil {
			log.Fatalf("cache sync failed for %v", typ)
		}
	}
	synced.Store(true)
	for _, n := range p.nodeOrder {
		log.Printf("serving %s on node %s, base dir %s", p.name, n, p.baseDirs[n])
	}

	go func() { <-ctx.Done(); p.queue.ShutDown() }()
	for p.next(ctx) {
	}
	log.Print("stopped")
}

// nodeFlags collects repeated --node <name>=<base-dir> flags, in order.
type nodeFlags []struct{ name, baseDir string }

func (f *nodeFlags) String() string { return fmt.Sprint(*f) }

func (f *nodeFlags) Set(v string) error {
	name, dir, ok := strings.Cut(v, "=")
	if !ok || name == "" || dir == "" {
		return fmt.Errorf("want <node-name>=<base-dir>, got %q", v)
	}
	*f = append(*f, struct{ name, baseDir string }{name, dir})
	return nil
}

func mustHandle(_ cache.ResourceEventHandlerRegistration, err error) {
	if err != nil {
		log.Fatal(err)
	}
}

// next processes one queue item; false once the queue is shut down.
func (p *provisioner) next(ctx context.Context) bool {
	key, quit := p.queue.Get()
	if quit {
		return false
	}
	defer p.queue.Done(key)
	var err error
	if rest, ok := strings.CutPrefix(key, "pvc/"); ok {
		err = p.syncClaim(ctx, rest)
	} else {
		err = p.syncVolume(ctx, strings.TrimPrefix(key, "pv/"))
	}
	if err != nil && ctx.Err() == nil {
		log.Printf("%s: %v (retrying)", key, err)
		p.queue.AddRateLimited(key)
		return true
	}
	p.queue.Forget(key)
	return true
}

func (p *provisioner) syncClaim(ctx context.Context, key string) error {
	ns, name, _ := cache.SplitMetaNamespaceKey(key)
	claim, err := p.pvcs.PersistentVolumeClaims(ns).Get(name)
	if apierrors.IsNotFound(err) || err == nil && claim.DeletionTimestamp != nil {
		return nil
	} else if err != nil {
		return err
	}
	if claim.Spec.VolumeName != "" {
		return p.resizeClaim(ctx, claim)
	}
	className := claim.Annotations[annBetaClass]
	if claim.Spec.StorageClassName != nil {
		className = *claim.Spec.StorageClassName
	}
	if className == "" {
		return nil
	}
	class, err := p.classes.Get(className)
	if apierrors.IsNotFound(err) {
		return nil // re-queued when the class appears
	} else if err != nil || class.Provisioner != p.name {
		return err
	}
	node := p.nodeOrder[0]
	if class.VolumeBindingMode != nil && *class.VolumeBindingMode == storagev1.VolumeBindingWaitForFirstConsumer {
		selected, ok := claim.Annotations[annSelectedNode]
		if !ok {
			return nil // the scheduler has not picked a node yet
		}
		if _, served := p.baseDirs[selected]; !served {
			log.Printf("pvc %s: selected node %q is not one of this provisioner's nodes %v; skipping", key, selected, p.nodeOrder)
			return nil
		}
		node = selected
	}
	pvName := "pvc-" + string(claim.UID)
	if _, err := p.pvs.Get(pvName); err == nil {
		return nil
	}
	pv, err := p.volumeFor(claim, class, pvName, node)
	if err != nil {
		p.recorder.Event(claim, corev1.EventTypeWarning, "ProvisioningFailed", err.Error())
		log.Printf("pvc %s: %v", key, err)
		return nil // the claim's spec is immutable: retrying will not help
	}
	dir := pv.Spec.HostPath.Path
	if err := os.Mkdir(dir, 0o777); err != nil && !errors.Is(err, os.ErrExist) {
		p.recorder.Eventf(claim, corev1.EventTypeWarning, "ProvisioningFailed", "creating %s: %v", dir, err)
		return err
	}
	if err := os.Chmod(dir, 0o777); err != nil { // the umask trimmed Mkdir's mode
		return err
	}
	_, err = p.client.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	} else if err != nil {
		p.recorder.Eventf(claim, corev1.EventTypeWarning, "ProvisioningFailed", "creating PV %s: %v", pvName, err)
		return err
	}
	p.recorder.Eventf(claim, corev1.EventTypeNormal, "ProvisioningSucceeded", "Successfully provisioned volume %s at %s", pvName, dir)
	log.Printf("pvc %s: provisioned %s at %s", key, pvName, dir)
	return nil
}

// resizeClaim grows the PV of a bound claim that asks for more than it has, then says so in the
// claim's status. Each step is idempotent: a crash between the two redoes only the second.
func (p *provisioner) resizeClaim(ctx context.Context, claim *corev1.PersistentVolumeClaim) error {
	want, ok := claim.Spec.Resources.Requests[corev1.ResourceStorage]
	if !ok || claim.Status.Phase != corev1.ClaimBound {
		return nil
	}
	if has, ok := claim.Status.Capacity[corev1.ResourceStorage]; ok && has.Cmp(want) >= 0 {
		return nil
	}
	pv, err := p.pvs.Get(claim.Spec.VolumeName)
	if apierrors.IsNotFound(err) {
		return nil
	} else if err != nil {
		return err
	}
	if pv.Annotations[annProvisionedBy] != p.name || pv.Spec.ClaimRef == nil || pv.Spec.ClaimRef.UID != claim.UID {
		return nil
	}
	key := claim.Namespace + "/" + claim.Name
	if capacity := pv.Spec.Capacity[corev1.ResourceStorage]; capacity.Cmp(want) < 0 {
		grown := pv.DeepCopy()
		grown.Spec.Capacity[corev1.ResourceStorage] = want
		if _, err := p.client.CoreV1().PersistentVolumes().Update(ctx, grown, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("growing PV %s to %s: %w", pv.Name, want.String(), err)
		}
		log.Printf("pvc %s: PV %s grown from %s to %s", key, pv.Name, capacity.String(), want.String())
	}
	resized := claim.DeepCopy()
	if resized.Status.Capacity == nil {
		resized.Status.Capacity = corev1.ResourceList{}
	}
	resized.Status.Capacity[corev1.ResourceStorage] = want
	resized.Status.AllocatedResources = corev1.ResourceList{corev1.ResourceStorage: want}
	resized.Status.AllocatedResourceStatuses = nil
	resized.Status.Conditions = nil
	if _, err := p.client.CoreV1().PersistentVolumeClaims(claim.Namespace).UpdateStatus(ctx, resized, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("recording the new capacity %s: %w", want.String(), err)
	}
	p.recorder.Eventf(claim, corev1.EventTypeNormal, "VolumeResizeSuccessful", "volume %s grown to %s", pv.Name, want.String())
	log.Printf("pvc %s: capacity is now %s", key, want.String())
	return nil
}

// volumeFor builds the PV for claim, or says why the claim cannot be served.
func (p *provisioner) volumeFor(claim *corev1.PersistentVolumeClaim, class *storagev1.StorageClass, pvName, node string) (*corev1.PersistentVolume, error) {
	if claim.Spec.Selector != nil {
		return nil, errors.New("claim selectors are not supported")
	}
	if claim.Spec.VolumeMode != nil && *claim.Spec.VolumeMode == corev1.PersistentVolumeBlock {
		return nil, errors.New("block volumes are not supported")
	}
	if claim.Spec.DataSource != nil || claim.Spec.DataSourceRef != nil {
		return nil, errors.New("data sources are not supported")
	}
	size, ok := claim.Spec.Resources.Requests[corev1.ResourceStorage]
	if !ok {
		return nil, errors.New("claim requests no storage")
	}
	reclaim := corev1.PersistentVolumeReclaimDelete
	if class.ReclaimPolicy != nil {
		reclaim = *class.ReclaimPolicy
	}
	dirType := corev1.HostPathDirectory
	return &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: pvName, Annotations: map[string]string{annProvisionedBy: p.name}},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:    corev1.ResourceList{corev1.ResourceStorage: size},
			AccessModes: claim.Spec.AccessModes,
			VolumeMode:  claim.Spec.VolumeMode,
			PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{
				Path: filepath.Join(p.baseDirs[node], fmt.Sprintf("%s_%s_%s", claim.Namespace, claim.Name, claim.UID)),
				Type: &dirType,
			}},
			ClaimRef: &corev1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1",
				Namespace: claim.Namespace, Name: claim.Name, UID: claim.UID},
			StorageClassName:              class.Name,
			PersistentVolumeReclaimPolicy: reclaim,
			NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{
				NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{
					Key: labelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{node}}}}}}},
		},
	}, nil
}

func (p *provisioner) syncVolume(ctx context.Context, name string) error {
	pv, err := p.pvs.Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	} else if err != nil {
		return err
	}
	if pv.Annotations[annProvisionedBy] != p.name || pv.DeletionTimestamp != nil ||
		pv.Spec.PersistentVolumeReclaimPolicy != corev1.PersistentVolumeReclaimDelete ||
		pv.Status.Phase != corev1.VolumeReleased && pv.Status.Phase != corev1.VolumeFailed {
		return nil
	}
	if pv.Spec.HostPath == nil {
		return nil
	}
	dir := filepath.Clean(pv.Spec.HostPath.Path)
	node := pinnedNode(pv)
	base, served := p.baseDirs[node]
	if !served || filepath.Dir(dir) != base {
		log.Printf("pv %s: path %s is not directly under the base dir of its node %q; leaving the PV and the path alone", name, dir, node)
		return nil
	}
	if err := removeDir(dir); err != nil {
		return fmt.Errorf("removing %s: %w", dir, err)
	}
	uid := pv.UID
	err = p.client.CoreV1().PersistentVolumes().Delete(ctx, name, metav1.DeleteOptions{
		Preconditions: &metav1.Preconditions{UID: &uid}})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return err
	}
	log.Printf("pv %s: %s, deleted it and %s", name, pv.Status.Phase, dir)
	return nil
}

// pinnedNode is the one node a PV's nodeAffinity names (kubernetes.io/hostname In [node]), or "".
func pinnedNode(pv *corev1.PersistentVolume) string {
	if pv.Spec.NodeAffinity == nil || pv.Spec.NodeAffinity.Required == nil {
		return ""
	}
	for _, term := range pv.Spec.NodeAffinity.Required.NodeSelectorTerms {
		for _, r := range term.MatchExpressions {
			if r.Key == labelHostname && r.Operator == corev1.NodeSelectorOpIn && len(r.Values) == 1 {
				return r.Values[0]
			}
		}
	}
	return ""
}

// removeDir removes dir and everything in it; a symlink in dir's place is removed, never followed
// (os.RemoveAll does not follow links inside the tree either).
func removeDir(dir string) error {
	fi, err := os.Lstat(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	if !fi.IsDir() {
		return os.Remove(dir)
	}
	return os.RemoveAll(dir)
}
