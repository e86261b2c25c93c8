/** `GET /v2/version` (the official SDK reads it first). */
import { z } from 'zod';
import { Duration, Int32 } from './common.ts';

export const ExperimentalStaticTime = z.object({ supported: z.boolean() });
export type ExperimentalStaticTime = z.infer<typeof ExperimentalStaticTime>;
export const ExperimentalCommandInspectionService = z.object({ supported: z.boolean() });
export type ExperimentalCommandInspectionService = z.infer<typeof ExperimentalCommandInspectionService>;
export const ExperimentalFeatures = z.object({
  staticTime: ExperimentalStaticTime.nullish(),
  commandInspectionService: ExperimentalCommandInspectionService.nullish(),
});
export type ExperimentalFeatures = z.infer<typeof ExperimentalFeatures>;
export const UserManagementFeature = z.object({
  supported: z.boolean(),
  maxRightsPerUser: Int32,
  maxUsersPageSize: Int32,
});
export type UserManagementFeature = z.infer<typeof UserManagementFeature>;
export const PartyManagementFeature = z.object({ maxPartiesPageSize: Int32 });
export type PartyManagementFeature = z.infer<typeof PartyManagementFeature>;
export const OffsetCheckpointFeature = z.object({ maxOffsetCheckpointEmissionDelay: Duration });
export type OffsetCheckpointFeature = z.infer<typeof OffsetCheckpointFeature>;
export const PackageFeature = z.object({ maxVettedPackagesPageSize: Int32 });
export type PackageFeature = z.infer<typeof PackageFeature>;

export const FeaturesDescriptor = z.object({
  experimental: ExperimentalFeatures,
  userManagement: UserManagementFeature,
  partyManagement: PartyManagementFeature,
  offsetCheckpoint: OffsetCheckpointFeature,
  packageFeature: PackageFeature,
});
export type FeaturesDescriptor = z.infer<typeof FeaturesDescriptor>;

export const GetLedgerApiVersionResponse = z.object({ version: z.string(), features: FeaturesDescriptor });
export type GetLedgerApiVersionResponse = z.infer<typeof GetLedgerApiVersionResponse>;
