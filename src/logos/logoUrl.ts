/**
 * Our own logo route for a token (`native` for the chain's native asset): public and cacheable,
 * because browsers load logos without a key. It redirects to a configured logo or draws one.
 */
export const logoUrl = (publicUrl: string, chainId: number, address: string): string =>
  address === "native"
    ? `${publicUrl}/beta/token/logo/${chainId}`
    : `${publicUrl}/beta/token/logo/${chainId}/${address}`;
