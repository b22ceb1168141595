import { describe, expect, it } from 'vitest';
import { metricSum } from '../../bench/message-counts.js';

describe('metricSum', () => {
  const page = [
    '# HELP grpc_server_msg_received_total Total number of RPC stream messages received on the server.',
    '# TYPE grpc_server_msg_received_total counter',
    'grpc_server_msg_received_total{grpc_method="LeaseGrant",grpc_service="etcdserverpb.Lease",grpc_type="unary"} 3',
    'grpc_server_msg_received_total{grpc_method="Range",grpc_service="etcdserverpb.KV",grpc_type="unary"} 1.2e+01',
    'grpc_server_msg_received_total_other 100',
    'grpc_server_started_total{grpc_method="Range"} 50',
    'etcd_disk_wal_fsync_duration_seconds_count 7',
  ].join('\n');

  it('adds the counter over all its labels, and nothing that merely starts with its name', () => {
    expect(metricSum(page, 'grpc_server_msg_received_total')).toBe(15);
  });

  it('reads an unlabelled counter, and 0 for one the page lacks', () => {
    expect(metricSum(page, 'etcd_disk_wal_fsync_duration_seconds_count')).toBe(7);
    expect(metricSum(page, 'etcd_missing_total')).toBe(0);
  });
});
