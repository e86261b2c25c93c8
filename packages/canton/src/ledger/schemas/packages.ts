/** Package vetting listing (`POST /v2/package-vetting/list`). The request is proto-generated (relaxed). */
import { z } from 'zod';
import { Int32, Int32Input, opt, Timestamp } from './common.ts';

export const PackageMetadataFilter = z.object({
  packageIds: opt(z.array(z.string())),
  packageNamePrefixes: opt(z.array(z.string())),
});
export type PackageMetadataFilter = z.infer<typeof PackageMetadataFilter>;

export const TopologyStateFilter = z.object({
  participantIds: opt(z.array(z.string())),
  synchronizerIds: opt(z.array(z.string())),
});
export type TopologyStateFilter = z.infer<typeof TopologyStateFilter>;

export const ListVettedPackagesRequest = z.object({
  packageMetadataFilter: opt(PackageMetadataFilter),
  topologyStateFilter: opt(TopologyStateFilter),
  /** Empty or missing: first page. */
  pageToken: opt(z.string()),
  /** 0 or missing: the server chooses; above the server maximum (default 100) is an error. */
  pageSize: opt(Int32Input),
});
export type ListVettedPackagesRequest = z.infer<typeof ListVettedPackagesRequest>;

export const VettedPackage = z.object({
  packageId: z.string(),
  validFromInclusive: opt(Timestamp),
  validUntilExclusive: opt(Timestamp),
  /** Only when the package is uploaded on this participant. */
  packageName: opt(z.string()),
  packageVersion: opt(z.string()),
});
export type VettedPackage = z.infer<typeof VettedPackage>;

export const VettedPackages = z.object({
  packages: z.array(VettedPackage),
  participantId: z.string(),
  synchronizerId: z.string(),
  topologySerial: Int32,
});
export type VettedPackages = z.infer<typeof VettedPackages>;

export const ListVettedPackagesResponse = z.object({
  vettedPackages: opt(z.array(VettedPackages)),
  /** Empty when there are no further results. */
  nextPageToken: opt(z.string()),
});
export type ListVettedPackagesResponse = z.infer<typeof ListVettedPackagesResponse>;
