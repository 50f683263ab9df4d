/**
 * The IAM policies of a packaged template's roles, with CloudFormation's intrinsics resolved to the names
 * of the local world: the account and region the tests use, the buckets' and tables' names the template
 * gives them. What the gate (gate.js) evaluates is then exactly the template's policy text, no statement
 * added, dropped or loosened.
 */

/**
 * @typedef {object} World  what the pseudo parameters stand for here
 * @property {string} account @property {string} region @property {string} [partition]
 */

/**
 * @typedef {object} Role  one role of the template, as the gate judges its calls
 * @property {string} logicalId
 * @property {string} arn   arn:aws:iam::<account>:role/<name>
 * @property {Array<{ name: string, policy: any }>} policies  identity policies, resolved
 */

/**
 * @param {any} template  cloudformation-template-update-stack.json, parsed
 * @param {World} world
 * @returns {Record<string, Role>}  by logical id (IamRoleLambdaExecution: the functions'; JobStateMachineRole: the state machine's)
 */
export function rolesOf(template, world) {
  const resolve = resolver(template, world);
  /** @type {Record<string, Role>} */
  const roles = {};
  for (const [logicalId, resource] of Object.entries(/** @type {Record<string, any>} */ (template.Resources))) {
    if (resource.Type !== 'AWS::IAM::Role') continue;
    const properties = resource.Properties;
    const name = properties.RoleName === undefined ? `${logicalId}-local` : String(resolve(properties.RoleName));
    roles[logicalId] = {
      logicalId,
      arn: `arn:${world.partition ?? 'aws'}:iam::${world.account}:role/${name}`,
      policies: (properties.Policies ?? []).map((/** @type {any} */ policy) => ({ name: String(resolve(policy.PolicyName)), policy: resolve(policy.PolicyDocument) })),
    };
  }
  return roles;
}

/**
 * Resolves Ref, Fn::GetAtt (Arn of a bucket, table, function, state machine or role), Fn::Join and Fn::Sub
 * anywhere in a value; anything else it cannot resolve fails, naming it, rather than being guessed.
 * @param {any} template @param {World} world
 * @returns {(value: any) => any}
 */
export function resolver(template, world) {
  const partition = world.partition ?? 'aws';
  /** @type {Record<string, string>} */
  const pseudo = { 'AWS::Partition': partition, 'AWS::Region': world.region, 'AWS::AccountId': world.account, 'AWS::URLSuffix': 'amazonaws.com', 'AWS::StackName': 'local-stack' };
  const resources = /** @type {Record<string, any>} */ (template.Resources);

  /** @param {string} id @returns {string} */
  function ref(id) {
    if (pseudo[id] !== undefined) return pseudo[id];
    const resource = resources[id];
    if (resource === undefined) throw new Error(`the template has no resource or pseudo parameter ${id}`);
    const properties = resource.Properties ?? {};
    const named = { 'AWS::S3::Bucket': properties.BucketName, 'AWS::DynamoDB::Table': properties.TableName, 'AWS::Lambda::Function': properties.FunctionName, 'AWS::IAM::Role': properties.RoleName }[/** @type {string} */ (resource.Type)];
    if (named === undefined) throw new Error(`cannot resolve Ref ${id} (${resource.Type}) to a local name`);
    return String(resolve(named));
  }

  /** @param {string} id @param {string} attribute @returns {string} */
  function getAtt(id, attribute) {
    const resource = resources[id];
    if (resource === undefined || attribute !== 'Arn') throw new Error(`cannot resolve Fn::GetAtt ${id}.${attribute}`);
    const name = ref(id);
    const arn = {
      'AWS::S3::Bucket': `arn:${partition}:s3:::${name}`,
      'AWS::DynamoDB::Table': `arn:${partition}:dynamodb:${world.region}:${world.account}:table/${name}`,
      'AWS::Lambda::Function': `arn:${partition}:lambda:${world.region}:${world.account}:function:${name}`,
      'AWS::IAM::Role': `arn:${partition}:iam::${world.account}:role/${name}`,
    }[/** @type {string} */ (resource.Type)];
    if (arn === undefined) throw new Error(`cannot resolve Fn::GetAtt ${id}.Arn (${resource.Type})`);
    return arn;
  }

  /** @param {any} value @returns {any} */
  function resolve(value) {
    if (Array.isArray(value)) return value.map(resolve);
    if (value === null || typeof value !== 'object') return value;
    const keys = Object.keys(value);
    if (keys.length === 1 && keys[0] === 'Ref') return ref(value.Ref);
    if (keys.length === 1 && keys[0] === 'Fn::GetAtt') {
      const [id, attribute] = typeof value['Fn::GetAtt'] === 'string' ? value['Fn::GetAtt'].split('.') : value['Fn::GetAtt'];
      return getAtt(id, attribute);
    }
    if (keys.length === 1 && keys[0] === 'Fn::Join') {
      const [separator, parts] = value['Fn::Join'];
      return resolve(parts).join(separator);
    }
    if (keys.length === 1 && keys[0] === 'Fn::Sub') {
      const [text, variables = {}] = typeof value['Fn::Sub'] === 'string' ? [value['Fn::Sub']] : value['Fn::Sub'];
      return text.replace(/\$\{([^}!]+)\}/g, (/** @type {string} */ _, /** @type {string} */ name) => {
        if (variables[name] !== undefined) return String(resolve(variables[name]));
        const [id, attribute] = name.split('.');
        return attribute === undefined ? ref(id) : getAtt(id, attribute);
      });
    }
    if (keys.some((key) => key.startsWith('Fn::'))) throw new Error(`cannot resolve ${keys.join(', ')} locally`);
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, resolve(inner)]));
  }
  return resolve;
}
