import { describe, expect, it } from 'vitest';
import {
  addressProblem,
  endpointProblem,
  literalHostProblem,
  parseAllowedNetworks,
  STRICT_POLICY,
  type EndpointPolicy,
} from '../../src/net/ssrf.js';

const withAllowed = (text: string): EndpointPolicy => ({ allowPrivate: false, ...parseAllowedNetworks(text) });

describe('SSRF guard: which addresses are refused', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['169.254.169.254', 'linkLocal'],
    ['0.0.0.0', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:169.254.169.254', 'linkLocal'],
    ['::ffff:10.0.0.1', 'private'],
  ])('refuses %s (%s)', (address, range) => {
    expect(addressProblem(address, STRICT_POLICY)).toContain(`a ${range} address`);
  });

  it.each(['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('allows public %s', (address) => {
    expect(addressProblem(address, STRICT_POLICY)).toBeNull();
  });

  it('allows listed networks, addresses and host names, and everything when private endpoints are allowed', () => {
    const policy = withAllowed('10.1.0.0/16, fd00::/8 192.168.7.7 internal.example');
    expect(addressProblem('10.1.2.3', policy)).toBeNull();
    expect(addressProblem('10.2.0.1', policy)).not.toBeNull();
    expect(addressProblem('fd00::5', policy)).toBeNull();
    expect(addressProblem('192.168.7.7', policy)).toBeNull();
    expect(addressProblem('192.168.7.8', policy)).not.toBeNull();
    expect(addressProblem('127.0.0.1', policy, 'internal.example')).toBeNull();
    expect(addressProblem('127.0.0.1', policy, 'other.example')).toContain('other.example resolves to 127.0.0.1');
    expect(addressProblem('127.0.0.1', { ...STRICT_POLICY, allowPrivate: true })).toBeNull();
    expect(() => parseAllowedNetworks('10.0.0.0/8 not_a/host')).toThrow(/not_a\/host/);
  });
});

describe('SSRF guard at create/patch: literal hosts and localhost', () => {
  it.each([
    'http://127.0.0.1:9000/x',
    'http://localhost/x',
    'http://LOCALHOST/x',
    'http://localhost./x',
    'http://api.localhost/x',
    'http://[::1]/x',
    'http://[::ffff:7f00:1]/x',
    'http://[fe80::1]/x',
    'http://169.254.169.254/latest/meta-data',
    'http://2130706433/',
    'http://0x7f.1/',
    'http://0177.0.0.1/',
    'https://10.0.0.1/',
    'http://0.0.0.0:8080/',
  ])('refuses %s', (endpoint) => {
    expect(endpointProblem(endpoint, STRICT_POLICY)).not.toBeNull();
  });

  it.each(['https://example.com/hook', 'http://93.184.215.14/', 'https://[2606:4700:4700::1111]/'])('accepts %s', (endpoint) => {
    expect(endpointProblem(endpoint, STRICT_POLICY)).toBeNull();
  });

  it('lets the switches through', () => {
    expect(endpointProblem('http://localhost/x', { ...STRICT_POLICY, allowPrivate: true })).toBeNull();
    expect(endpointProblem('http://localhost/x', withAllowed('localhost'))).toBeNull();
    expect(endpointProblem('http://10.1.2.3/x', withAllowed('10.1.0.0/16'))).toBeNull();
  });

  it('checks IP-literal hosts at call time too, and leaves host names to the lookup', () => {
    expect(literalHostProblem('http://[::1]:8080/', STRICT_POLICY)).toContain('loopback');
    expect(literalHostProblem('http://example.com/', STRICT_POLICY)).toBeNull();
  });
});
