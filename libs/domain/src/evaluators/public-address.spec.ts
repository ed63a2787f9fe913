import { isNonPublicHost } from './public-address';

describe(isNonPublicHost.name, () => {
  it.each([
    'https://127.0.0.1/score',
    'https://127.1.2.3/',
    'https://169.254.169.254/latest/meta-data',
    'https://[::ffff:7f00:1]/',
    'https://[::ffff:169.254.169.254]/',
    'https://2130706433/',
    'https://0177.0.0.1/',
    'https://0x7f.1/',
    'https://0.0.0.0/',
    'https://[::]/',
    'https://[::1]/',
    'https://10.1.2.3/',
    'https://172.16.0.1/',
    'https://192.168.0.1/',
    'https://100.64.0.1/',
    'https://[fe80::1]/',
    'https://[fd00::1]/',
    'https://224.0.0.1/',
    'https://255.255.255.255/',
    'https://localhost/',
    'https://LOCALHOST./',
    'https://judge.localhost/',
  ])('refuses %s', (url) => {
    expect(isNonPublicHost(new URL(url))).toBe(true);
  });

  it.each([
    'https://eval.example.com/score',
    'https://93.184.215.14/',
    'https://[2606:4700::1111]/',
    'https://localhost.example.com/',
    'https://8.8.8.8:8443/x',
  ])('takes %s', (url) => {
    expect(isNonPublicHost(new URL(url))).toBe(false);
  });
});
