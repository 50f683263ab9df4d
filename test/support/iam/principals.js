/**
 * Who makes the calls in the tests, as the IAM gate (gate.js) judges them: each principal's session
 * token, its ARN and its policies, from the packaged template (the functions' role, the state machine's
 * role) and from src/cli/iam-policy.js (the command line's user).
 */
import { commandLinePolicy } from '../../../src/cli/iam-policy.js';
import { rolesOf } from './template-policies.js';

/** The session tokens the tests' credentials carry; AWS_SESSION_TOKEN in the process that makes the call. */
export const TOKENS = { function: 'iam-gate:function', stateMachine: 'iam-gate:state-machine', cli: 'iam-gate:cli' };

/**
 * @param {any} template  the packaged template
 * @param {{ account: string, region: string, stack: string, outputBucket: string }} world
 * @returns {Record<string, import('./gate.js').Principal>}  by session token
 */
export function principalsOf(template, world) {
  const roles = rolesOf(template, world);
  const session = (/** @type {string} */ arn, /** @type {string} */ name) => arn.replace(':iam::', ':sts::').replace(':role/', ':assumed-role/') + `/${name}`;
  const fn = roles.IamRoleLambdaExecution;
  const machine = roles.JobStateMachineRole;
  if (fn === undefined || machine === undefined) throw new Error('the packaged template has no IamRoleLambdaExecution or JobStateMachineRole');
  const user = `arn:aws:iam::${world.account}:user/ddbload-user`;
  return {
    [TOKENS.function]: { name: 'function', arn: fn.arn, caller: session(fn.arn, `${world.stack}-import`), policies: fn.policies },
    [TOKENS.stateMachine]: { name: 'state-machine', arn: machine.arn, caller: session(machine.arn, 'states'), policies: machine.policies },
    [TOKENS.cli]: { name: 'cli', arn: user, caller: user, policies: [{ name: 'ddbload-command-line', policy: commandLinePolicy({ stack: world.stack, region: world.region, account: world.account, outputBucket: world.outputBucket }) }] },
  };
}
