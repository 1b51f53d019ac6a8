/** Where a test backend listens unless told otherwise: loopback, reachable from this machine only. */
export const defaultListenHost = '127.0.0.1';

/** The `host` option of the test backends that other processes (or pods) connect to. */
export interface ListenHostOption {
  /**
   * The address to listen on and to advertise; e.g. the node tier's hostAddress so that pods
   * reach it — never an outside interface. Default `127.0.0.1`.
   */
  host?: string;
}
