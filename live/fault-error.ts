// The one error the live lab's fault board and its servers throw for a fault they refuse.

/** A fault the board refuses (the server is down, or already faulted): a 409 for the page. */
export class FaultError extends Error {}
