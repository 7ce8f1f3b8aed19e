import {
  type Address,
  encodeDeployData,
  type Hex,
  parseAbi,
  parseEther,
  stringToHex,
  zeroAddress,
} from "viem";
import {
  bytes32TokenAbi,
  devTokenAbi,
  namelessTokenAbi,
  poolManagerAbi,
  poolSwapTestAbi,
  positionManagerV3Abi,
  positionManagerV4Abi,
  stateViewAbi,
  swapRouterV3Abi,
  v2FactoryAbi,
  v2RouterAbi,
  wethAbi,
} from "./abis.js";
import { type ChainClient, deploy, execute } from "./ChainClient.js";
import type { CompiledContracts } from "./compileContracts.js";
import { MULTICALL3_ADDRESS, MULTICALL3_RUNTIME_CODE } from "./multicall3.js";
import { PERMIT2_ADDRESS, permit2RuntimeCode, protocolBytecode } from "./protocolArtifacts.js";
import { DEPLOYED_TOKENS, type TokenSpec, type TokenSymbol, units } from "./tokenSpecs.js";

/** One V2 deployment: the factory and a router bound to it. */
export interface V2Deployment {
  readonly factory: Address;
  readonly router: Address;
}

/** One V3 deployment: factory, NonfungiblePositionManager and SwapRouter. */
export interface V3Deployment {
  readonly factory: Address;
  readonly positionManager: Address;
  readonly swapRouter: Address;
}

/** V4 singleton and its periphery. `poolSwapTest` is v4-core's test router, used for seeded swaps. */
export interface V4Deployment {
  readonly poolManager: Address;
  readonly positionManager: Address;
  readonly stateView: Address;
  readonly poolSwapTest: Address;
}

/** Every contract the seed deploys on a chain, plus the block after which the AMMs exist. */
export interface DeployedContracts {
  readonly tokens: Readonly<Record<TokenSymbol, Address>>;
  readonly uniswapV2: V2Deployment;
  readonly sushiswapV2: V2Deployment;
  readonly uniswapV3: V3Deployment;
  readonly sushiswapV3: V3Deployment;
  readonly uniswapV4: V4Deployment;
  readonly multicall3: Address;
  readonly permit2: Address;
  readonly collectible: Address;
  readonly multiToken: Address;
  readonly pagingTokenFactory: Address;
  /** Block number of the first AMM factory deployment (backfill start). */
  readonly ammStartBlock: number;
}

/** V4 PositionManager gas budget for unsubscribe callbacks, the value Uniswap deploys with. */
const V4_UNSUBSCRIBE_GAS_LIMIT = 300_000n;

const tokenCreationCode = (compiled: CompiledContracts, spec: TokenSpec, holder: Address): Hex => {
  const supply = units(Number(spec.supply), spec.decimals);
  const code = (name: string): Hex => {
    const contract = compiled[name];
    if (contract === undefined) throw new Error(`contract ${name} missing from the solc build`);
    return contract.bytecode;
  };
  switch (spec.shape) {
    case "standard":
      return encodeDeployData({
        abi: devTokenAbi,
        bytecode: code("DevToken"),
        args: [spec.name, spec.symbol, spec.decimals, holder, supply],
      });
    case "bytes32":
      return encodeDeployData({
        abi: bytes32TokenAbi,
        bytecode: code("Bytes32Token"),
        args: [stringToHex(spec.name, { size: 32 }), stringToHex(spec.symbol, { size: 32 }), holder, supply],
      });
    case "nameless":
      return encodeDeployData({
        abi: namelessTokenAbi,
        bytecode: code("NamelessToken"),
        args: [spec.symbol, spec.decimals, holder, supply],
      });
  }
};

const noArgs = parseAbi(["constructor()"]);

const deployV2 = async (client: ChainClient, from: Address, weth: Address): Promise<V2Deployment> => {
  const factory = await deploy(
    client,
    from,
    encodeDeployData({ abi: v2FactoryAbi, bytecode: protocolBytecode("UniswapV2Factory"), args: [from] }),
  );
  const router = await deploy(
    client,
    from,
    encodeDeployData({
      abi: v2RouterAbi,
      bytecode: protocolBytecode("UniswapV2Router02"),
      args: [factory, weth],
    }),
  );
  return { factory, router };
};

const deployV3 = async (client: ChainClient, from: Address, weth: Address): Promise<V3Deployment> => {
  const factory = await deploy(client, from, protocolBytecode("UniswapV3Factory"));
  // No token descriptor: tokenURI() reverts, everything the service reads (positions, ownerOf) works.
  const positionManager = await deploy(
    client,
    from,
    encodeDeployData({
      abi: positionManagerV3Abi,
      bytecode: protocolBytecode("NonfungiblePositionManager"),
      args: [factory, weth, zeroAddress],
    }),
  );
  const swapRouter = await deploy(
    client,
    from,
    encodeDeployData({
      abi: swapRouterV3Abi,
      bytecode: protocolBytecode("SwapRouter"),
      args: [factory, weth],
    }),
  );
  return { factory, positionManager, swapRouter };
};

const deployV4 = async (client: ChainClient, from: Address, weth: Address): Promise<V4Deployment> => {
  const poolManager = await deploy(
    client,
    from,
    encodeDeployData({ abi: poolManagerAbi, bytecode: protocolBytecode("PoolManager"), args: [from] }),
  );
  const positionManager = await deploy(
    client,
    from,
    encodeDeployData({
      abi: positionManagerV4Abi,
      bytecode: protocolBytecode("PositionManager"),
      args: [poolManager, PERMIT2_ADDRESS, V4_UNSUBSCRIBE_GAS_LIMIT, zeroAddress, weth],
    }),
  );
  const stateView = await deploy(
    client,
    from,
    encodeDeployData({ abi: stateViewAbi, bytecode: protocolBytecode("StateView"), args: [poolManager] }),
  );
  const poolSwapTest = await deploy(
    client,
    from,
    encodeDeployData({
      abi: poolSwapTestAbi,
      bytecode: protocolBytecode("PoolSwapTest"),
      args: [poolManager],
    }),
  );
  return { poolManager, positionManager, stateView, poolSwapTest };
};

const compiledCode = (compiled: CompiledContracts, name: string): Hex => {
  const contract = compiled[name];
  if (contract === undefined) throw new Error(`contract ${name} missing from the solc build`);
  return encodeDeployData({ abi: noArgs, bytecode: contract.bytecode, args: [] });
};

/**
 * Deploys every contract from `deployer` in a fixed order, so a fresh seed always yields the same addresses.
 * Multicall3 and Permit2 are installed at their canonical addresses with `anvil_setCode`. The deployer ends
 * up holding every token's supply and `wethEther` ether wrapped as WETH.
 */
export const deployContracts = async (
  client: ChainClient,
  compiled: CompiledContracts,
  deployer: Address,
  wethEther: number,
): Promise<DeployedContracts> => {
  await client.rpc("anvil_setCode", [MULTICALL3_ADDRESS, MULTICALL3_RUNTIME_CODE]);
  await client.rpc("anvil_setCode", [PERMIT2_ADDRESS, permit2RuntimeCode()]);
  const weth = await deploy(client, deployer, protocolBytecode("WETH9"));
  await execute(client, {
    from: deployer,
    address: weth,
    abi: wethAbi,
    functionName: "deposit",
    args: [],
    value: parseEther(String(wethEther)),
  });
  const tokens: Partial<Record<TokenSymbol, Address>> = { WETH: weth };
  for (const spec of DEPLOYED_TOKENS) {
    tokens[spec.symbol] = await deploy(client, deployer, tokenCreationCode(compiled, spec, deployer));
  }
  const ammStartBlock = Number(await client.publicClient.getBlockNumber()) + 1;
  return {
    tokens: tokens as Record<TokenSymbol, Address>,
    uniswapV2: await deployV2(client, deployer, weth),
    sushiswapV2: await deployV2(client, deployer, weth),
    uniswapV3: await deployV3(client, deployer, weth),
    sushiswapV3: await deployV3(client, deployer, weth),
    uniswapV4: await deployV4(client, deployer, weth),
    multicall3: MULTICALL3_ADDRESS,
    permit2: PERMIT2_ADDRESS,
    collectible: await deploy(client, deployer, compiledCode(compiled, "DemoCollectible")),
    multiToken: await deploy(client, deployer, compiledCode(compiled, "DemoMultiToken")),
    pagingTokenFactory: await deploy(client, deployer, compiledCode(compiled, "PagingTokenFactory")),
    ammStartBlock,
  };
};
