// Added to package networkpolicy of sigs.k8s.io/kube-network-policies by tools/node-tier/build.sh
// (see patch.sh): the node tier's kernels are built without nft_queue (CONFIG_NFT_QUEUE unset, no
// modules), so the upstream `queue` expression makes every ruleset sync fail ("Could not process
// rule: No such file or directory", kubernetes-sigs/kind#3705). The same verdict through nft_compat
// and the xtables NFQUEUE target, which these kernels have, is accepted.

package networkpolicy

import (
	"encoding/binary"

	"github.com/google/nftables/expr"
	"github.com/google/nftables/xt"
)

// xtQueue turns an nft queue verdict into the xtables NFQUEUE target, revision 3.
func xtQueue(q *expr.Queue) expr.Any {
	// struct xt_NFQ_info_v3 { __u16 queuenum; __u16 queues_total; __u16 flags; }, padded to 8 bytes
	info := make([]byte, 8)
	binary.NativeEndian.PutUint16(info[0:], q.Num)
	binary.NativeEndian.PutUint16(info[2:], 1) // the kernel refuses queues_total < 1
	if q.Flag&expr.QueueFlagBypass != 0 {
		binary.NativeEndian.PutUint16(info[4:], 1) // NFQ_FLAG_BYPASS
	}
	u := xt.Unknown(info)
	return &expr.Target{Name: "NFQUEUE", Rev: 3, Info: &u}
}
